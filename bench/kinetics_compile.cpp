// Compile cost of the kinetics kernels (examples/kinetics/rate_law_kernels.h), cold: for each
// mechanism and state form, the rates (values) and their Jacobian (one chunk), lowered to
// source, then compiled by NVRTC to CUBIN for sm_90 (no GPU needed) and, with --host, by the
// host compiler. Prints operations per cell, emitted statements and seconds per stage. The
// kernel cache is not used: every compile is cold.
//
//   kinetics_compile [--host] [MECHANISM[:PHASE] ...]
//     (default h2o2.yaml gri30.yaml nDodecane_Reitz.yaml:nDodecane_IG)
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "backends/cpu/host_compiler.h"
#include "examples/kinetics/cell_state.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "jit/cuda_image.h"
#include "jit/lowering.h"

using namespace dualjit;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  bool host = false;
  std::vector<std::string> specs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--host") {
      host = true;
    } else {
      specs.push_back(a);
    }
  }
  if (specs.empty()) specs = {"h2o2.yaml", "gri30.yaml", "nDodecane_Reitz.yaml:nDodecane_IG"};
  std::printf("%-34s %-18s %-9s %10s %10s %8s %8s %8s %8s\n", "mechanism", "state", "mode", "flops",
              "stmts", "build s", "lower s", "nvrtc s", "host s");
  for (const std::string& spec : specs) {
    const kinetics::Mechanism m = kinetics::load_mechanism(spec);
    for (auto state :
         {kinetics::ReactorState::constant_pressure, kinetics::ReactorState::concentrations}) {
      auto t0 = std::chrono::steady_clock::now();
      const Kernel k = kinetics::production_rates_kernel(m, {state});
      const double build_s = seconds_since(t0);
      for (Mode mode : {Mode::Value, Mode::Jacobian}) {
        jit::LoweringOptions o;
        o.mode = mode;
        o.width = 0;
        t0 = std::chrono::steady_clock::now();
        const jit::LoweredKernel l = jit::lower(k, o);
        const double lower_s = seconds_since(t0);
        t0 = std::chrono::steady_clock::now();
        jit::nvrtc_compile(l.symbol, l.cuda_source, jit::default_compile_options(l, "sm_90"));
        const double nvrtc_s = seconds_since(t0);
        double host_s = 0;
        if (host) {
          t0 = std::chrono::steady_clock::now();
          cpu::host_compile(l.symbol, l.host_source, cpu::HostCompileOptions{});
          host_s = seconds_since(t0);
        }
        std::printf("%-34s %-18s %-9s %10lld %10zu %8.2f %8.2f %8.2f %8.2f\n", spec.c_str(),
                    std::string(kinetics::reactor_state_name(state)).c_str(),
                    std::string(mode_name(mode)).c_str(), (long long)l.ops.flops(), l.statements,
                    build_s, lower_s, nvrtc_s, host_s);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
