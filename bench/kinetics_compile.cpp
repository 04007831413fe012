// Compile cost of the kinetics kernels (examples/kinetics/rate_law_kernels.h), cold: for each
// mechanism and state form, the rates (values) and their Jacobian (one chunk), lowered to
// source, then compiled by NVRTC to CUBIN for sm_90 (no GPU needed) and, with --host, by the
// host compiler. Prints operations per cell, emitted statements and seconds per stage. The
// kernel cache is not used: every compile is cold. --sparse: the Jacobian without structural
// zeros (jit/jacobian_pattern.h; what a 1,268-species mechanism needs), its nnz printed;
// --state FORM: only constant-pressure or concentrations.
//
//   kinetics_compile [--host] [--sparse] [--state FORM] [MECHANISM[:PHASE] ...]
//     (default h2o2.yaml gri30.yaml nDodecane_Reitz.yaml:nDodecane_IG)
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "backends/cpu/host_compiler.h"
#include "bench/wall_clock.h"
#include "examples/kinetics/cell_state.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "jit/cuda_image.h"
#include "jit/lowering.h"

using namespace dualjit;
using bench::seconds_since;

int main(int argc, char** argv) {
  bool host = false, sparse = false;
  std::string only_state;
  std::vector<std::string> specs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--host") {
      host = true;
    } else if (a == "--sparse") {
      sparse = true;
    } else if (a == "--state" && i + 1 < argc) {
      only_state = argv[++i];
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
      if (!only_state.empty() && only_state != kinetics::reactor_state_name(state)) continue;
      auto t0 = std::chrono::steady_clock::now();
      const Kernel k = kinetics::production_rates_kernel(m, {state});
      const double build_s = seconds_since(t0);
      for (Mode mode : {Mode::Value, Mode::Jacobian}) {
        jit::LoweringOptions o;
        o.mode = mode;
        o.width = 0;
        o.sparse_jacobian = sparse && mode == Mode::Jacobian;
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
        std::printf("%-34s %-18s %-9s %10lld %10zu %8.2f %8.2f %8.2f %8.2f", spec.c_str(),
                    std::string(kinetics::reactor_state_name(state)).c_str(),
                    std::string(mode_name(mode)).c_str(), (long long)l.ops.flops(), l.statements,
                    build_s, lower_s, nvrtc_s, host_s);
        if (o.sparse_jacobian) {
          std::printf("  nnz %lld of %lld", (long long)l.first_pattern.nnz(),
                      (long long)k.n_inputs() * k.n_outputs());
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
