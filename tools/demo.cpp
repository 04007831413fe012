// `dualjit demo`: define a kernel in the DSL, lower it, compile it (or load it from the
// cache), run it over a random spring network on the GPU (the CPU backend where there is
// none), and check a sample of elements against the reference evaluator.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "backends/cpu/cpu_kernel.h"
#include "backends/cuda/cuda_kernel.h"
#include "dsl/reference_evaluator.h"
#include "tools/commands.h"

namespace dualjit::tools {
namespace {

// A mass-spring edge energy, the smallest mesh energy with a non-trivial Hessian.
Kernel spring_kernel() {
  return Kernel("spring_energy", [](KernelBuilder& kb) {
    auto xa = kb.input_vec<3>("xa");
    auto xb = kb.input_vec<3>("xb");
    auto rest = kb.param("rest_length", 1);
    Expr k = kb.uniform("stiffness");
    Expr stretch = norm(xa - xb) / rest[0] - 1.0;
    kb.output("energy", 0.5 * k * rest[0] * stretch * stretch);
  });
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double rel_err(double a, double b) {
  return std::abs(a - b) / std::max(1.0, std::abs(b));
}

}  // namespace

int demo(int argc, char** argv) {
  int64_t n_elements = 100000;
  bool force_cpu = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help") {
      std::printf("usage: dualjit demo [--elements N] [--cpu]\n");
      return 0;
    } else if (a == "--elements" && i + 1 < argc) {
      n_elements = std::stoll(argv[++i]);
    } else if (a == "--cpu") {
      force_cpu = true;
    } else {
      std::fprintf(stderr, "dualjit demo: unknown option '%s'\n", a.c_str());
      return 2;
    }
  }
  const Kernel k = spring_kernel();
  std::printf("kernel %s: %d active inputs, %zu graph nodes, hash %.16s\n", k.name().c_str(),
              k.n_inputs(), k.graph().size(), k.hash().c_str());

  jit::LoweringOptions o;
  o.mode = Mode::Hessian;
  o.width = 3;
  const jit::LoweredKernel lowered = jit::lower(k, o);
  std::printf("%s", lowered.report().c_str());

  // A random spring network: node positions, edges, rest lengths.
  const int64_t n_nodes = std::max<int64_t>(2, n_elements / 3);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> pos(-1.0, 1.0), len(0.5, 1.5);
  std::uniform_int_distribution<int64_t> node(0, n_nodes - 1);
  std::vector<double> x(n_nodes * 3), rest(n_elements);
  std::vector<int32_t> conn(n_elements * 2);
  for (double& v : x) v = pos(rng);
  for (int64_t e = 0; e < n_elements; ++e) {
    conn[2 * e] = static_cast<int32_t>(node(rng));
    do conn[2 * e + 1] = static_cast<int32_t>(node(rng));
    while (conn[2 * e + 1] == conn[2 * e]);
    rest[e] = len(rng);
  }
  std::vector<double> values(n_elements), grad(n_elements * lowered.first_size),
      hess(n_elements * lowered.second_size);
  const bool gpu = !force_cpu && cuda::driver_available();
  const auto t0 = std::chrono::steady_clock::now();
  double run_ms = 0;
  bool compiled = false;
  if (gpu) {
    const cuda::CudaKernel ck(lowered);
    compiled = ck.compiled_now();
    auto d_conn = cuda::DeviceBuffer::from(conn);
    auto d_x = cuda::DeviceBuffer::from(x);
    auto d_rest = cuda::DeviceBuffer::from(rest);
    cuda::DeviceBuffer d_val(values.size() * 8), d_grad(grad.size() * 8), d_hess(hess.size() * 8);
    jit::LaunchArgs a;
    a.n_elements = n_elements;
    a.conn = reinterpret_cast<const int32_t*>(d_conn.get());
    a.vertices_per_element = 2;
    a.fields = {reinterpret_cast<const double*>(d_x.get()),
                reinterpret_cast<const double*>(d_x.get())};
    a.params = reinterpret_cast<const double*>(d_rest.get());
    a.uniforms = {100.0};
    a.values = reinterpret_cast<double*>(d_val.get());
    a.first = reinterpret_cast<double*>(d_grad.get());
    a.second = reinterpret_cast<double*>(d_hess.get());
    ck.launch(a);  // warm-up
    cuda::Event start, stop;
    start.record();
    ck.launch(a);
    stop.record();
    stop.synchronize();
    run_ms = cuda::Event::elapsed_ms(start, stop);
    d_val.download(values.data(), values.size() * 8);
    d_grad.download(grad.data(), grad.size() * 8);
    d_hess.download(hess.data(), hess.size() * 8);
    std::printf("backend: CUDA on %s\n", cuda::Context::primary().device().name.c_str());
  } else {
    if (!force_cpu) {
      std::printf("no GPU (%s): running the CPU backend\n",
                  cuda::driver_unavailable_reason().c_str());
    }
    const cpu::CpuKernel ck(lowered);
    compiled = ck.compiled_now();
    jit::LaunchArgs a;
    a.n_elements = n_elements;
    a.conn = conn.data();
    a.vertices_per_element = 2;
    a.fields = {x.data(), x.data()};
    a.params = rest.data();
    a.uniforms = {100.0};
    a.values = values.data();
    a.first = grad.data();
    a.second = hess.data();
    const auto r0 = std::chrono::steady_clock::now();
    ck.run(a);
    run_ms = ms_since(r0);
    std::printf("backend: CPU (host compiler + OpenMP)\n");
  }
  const double total_ms = ms_since(t0);

  // Check a sample of elements against the reference evaluator.
  double worst = 0;
  const int n = k.n_inputs();
  for (int64_t e = 0; e < n_elements; e += std::max<int64_t>(1, n_elements / 200)) {
    std::vector<double> xe;
    for (int v = 0; v < 2; ++v) {
      for (int c = 0; c < 3; ++c) xe.push_back(x[conn[2 * e + v] * 3 + c]);
    }
    const std::vector<double> p = {rest[e]}, u = {100.0};
    const HessianResult h = evaluate_hessian(k, {xe, p, u});
    worst = std::max(worst, rel_err(values[e], h.value));
    for (int i = 0; i < n; ++i) {
      worst = std::max(worst, rel_err(grad[e * n + i], h.gradient[i]));
      for (int j = i; j < n; ++j) {
        worst = std::max(worst, rel_err(hess[e * lowered.second_size + packed_upper_index(n, i, j)],
                                        h.hessian[i * n + j]));
      }
    }
  }
  const auto stats = jit::KernelCache::global().stats();
  const auto* disk = jit::KernelCache::global().disk();
  std::printf(
      "energy, gradient and Hessian of %lld springs: %.3f ms per launch, %.1f ms with "
      "setup\n",
      static_cast<long long>(n_elements), run_ms, total_ms);
  std::printf("kernel %s (%llu disk hits, %llu misses); cache: %s\n",
              compiled ? "compiled now" : "loaded from the cache",
              static_cast<unsigned long long>(stats.disk_hits),
              static_cast<unsigned long long>(stats.misses),
              disk ? disk->dir().string().c_str() : "memory only");
  std::printf("sample of elements vs the reference evaluator: worst relative error %.2e\n", worst);
  return worst < 1e-11 ? 0 : 1;
}

}  // namespace dualjit::tools
