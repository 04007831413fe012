// Compile and cache latency of the Roe flux Jacobian kernel on the GPU.
//   jit_compile_cache cold   empties $DUALJIT_CACHE_DIR's kernels, then: lower, NVRTC
//                            compile, store, load the module (cold start)
//   jit_compile_cache warm   a new process over the same cache: lower, disk hit, module
//                            load (warm start), then in-process hits
// Targets (issue 3): cold NVRTC compile < 1.5 s, warm start < 20 ms, in-process hit < 50 us.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "backends/cuda/cuda_kernel.h"
#include "examples/cfd/roe_flux.h"

using namespace dualjit;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const bool cold = argc > 1 && std::strcmp(argv[1], "cold") == 0;
  if (!cuda::driver_available()) {
    std::printf("no GPU: %s\n", cuda::driver_unavailable_reason().c_str());
    return 1;
  }
  cuda::Context::primary();  // context creation is not part of any figure below
  auto& cache = jit::KernelCache::global();
  if (cold && cache.disk()) cache.disk()->clear();

  for (int w : {5, 10}) {
    auto t0 = Clock::now();
    const Kernel roe = cfd::roe_flux_kernel();
    const double t_dsl = ms_since(t0);
    jit::LoweringOptions o;
    o.mode = Mode::Jacobian;
    o.width = w;
    o.layout = {w == 5 ? 2 : 1, w == 5 ? 64 : 128};
    t0 = Clock::now();
    const jit::LoweredKernel lowered = jit::lower(roe, o);
    const double t_lower = ms_since(t0);
    t0 = Clock::now();
    const cuda::CudaKernel k(lowered);
    const double t_kernel = ms_since(t0);
    std::printf(
        "%s W=%-2d %s: build kernel %.2f ms, lower %.2f ms, %s %.1f ms (NVRTC %.3f s, "
        "%s %s), registers %d, spills %d B\n",
        cold ? "cold" : "warm", w, lowered.symbol.c_str(), t_dsl, t_lower,
        k.compiled_now() ? "compile+load" : "disk hit+load", t_kernel, k.image().compile_seconds,
        k.image().arch.c_str(), k.image().is_cubin ? "cubin" : "ptx", k.image().ptxas.registers,
        k.image().ptxas.spill_store_bytes);
    std::printf("  warm start to a launchable function (kernel + lower + cache + load): %.1f ms\n",
                t_dsl + t_lower + t_kernel);
    if (!cold) {
      std::vector<double> hits;
      for (int i = 0; i < 200; ++i) {
        t0 = Clock::now();
        const cuda::CudaKernel again(lowered);
        hits.push_back(ms_since(t0) * 1000.0);
        if (again.compiled_now()) std::printf("  unexpected recompile\n");
      }
      std::sort(hits.begin(), hits.end());
      std::printf("  in-process hit (cache + loaded module), median of 200: %.1f us\n",
                  hits[hits.size() / 2]);
    }
  }
  const auto s = cache.stats();
  std::printf("cache: %llu memory hits, %llu disk hits, %llu misses, %llu corrupt\n",
              (unsigned long long)s.memory_hits, (unsigned long long)s.disk_hits,
              (unsigned long long)s.misses, (unsigned long long)s.corrupt);
  return 0;
}
