// Compile cost of the kinetics kernels (examples/kinetics/rate_law_kernels.h), cold: for each
// mechanism and state form, the rates (values) and their Jacobian (one chunk), lowered to
// source, then compiled by NVRTC to CUBIN for sm_90 (no GPU needed) and, with --host, by the
// host compiler. Prints operations per cell, emitted statements and seconds per stage. The
// compiled images do not go through the kernel cache: every compile is cold, unless --cache
// (then through $DUALJIT_CACHE_DIR's, and a second run's nvrtc column is the images' lookup
// from disk). The lowering reads the chunks an earlier run kept (jit/lowering_memo.h);
// DUALJIT_LOWERING_MEMO=0 runs the passes every time. --sparse: the Jacobian without structural
// zeros (jit/jacobian_pattern.h; what a 1,268-species mechanism needs), its nnz printed;
// --state FORM: only constant-pressure or concentrations; --rows R: the outputs in row groups
// (jit/derivative_plan.h); --launches N: a kernel in row groups as at most N launches compiled
// in parallel (jit/lowering.h lower_launches; 0 automatic, 1 whole); --schedule df|nm|ll;
// --effort auto|full: the default effort, or jit::CompileEffort::Full, as ReactorCells runs long
// batches (chunks whole up to kFullEffortPiece statements, -O3); --opt O<n> (ptxas -O<n>, whole) or
// fast-<max|mid|min>
// (--Ofast-compile) instead of the default effort; --extra OPT: an NVRTC option added verbatim
// (repeatable). Each line ends with the largest chunk's live-value estimate and the entry's ptxas
// registers, stack and spills (over launches: the most registers and stack, the spills summed;
// DUALJIT_PTXAS_LOG: the full log). --no-compile: lowering alone, each launch's source digest
// included (what a warm start pays before the kernel cache serves the compiled images), the NVRTC
// columns 0. As ReactorCells runs them, the values come from the rate laws' graph for values and
// the Jacobian from the one for derivatives (examples/kinetics/rate_laws.h RateLawForm);
// --form derivatives: the values from the Jacobian's kernel too. "build s" is each kernel's.
// --reactor: the adiabatic reactor's right-hand side (examples/kinetics/reactor_equations.h)
// instead of the rates, as kinetics_ignition integrates it: states constant-pressure and
// constant-volume. --min-blocks M: the Jacobian's LaunchLayout::min_blocks (unless given,
// ReactorOdes' default with --reactor, ReactorCells' without; 0 leaves ptxas free).
//
//   kinetics_compile [--host] [--no-compile] [--cache] [--sparse] [--effort auto|full]
//                    [--reactor] [--state FORM] [--rows R] [--min-blocks M]
//                    [--launches N] [--schedule S] [--opt O] [--extra OPT]
//                    [--form values|derivatives] [MECHANISM[:PHASE] ...]
//     (default h2o2.yaml gri30.yaml nDodecane_Reitz.yaml:nDodecane_IG)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/cpu/host_compiler.h"
#include "bench/wall_clock.h"
#include "examples/kinetics/cell_state.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "examples/kinetics/reactor_equations.h"
#include "examples/kinetics/reactor_odes.h"
#include "jit/cuda_image.h"
#include "jit/lowering.h"

using namespace dualjit;
using bench::seconds_since;

int main(int argc, char** argv) {
  bool host = false, sparse = false, compile = true, cached = false, full = false;
  bool reactor = false;
  int rows = 0, launches = 0;
  int min_blocks = -1;   // the default of the runs it mirrors
  std::string schedule;  // df, nm or ll; empty: the default
  std::string only_state, opt;
  std::vector<std::string> extra;  // NVRTC options added verbatim
  std::vector<std::string> specs;
  auto values_form = kinetics::RateLawForm::values;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--host") {
      host = true;
    } else if (a == "--no-compile") {
      compile = false;
    } else if (a == "--effort" && i + 1 < argc) {
      const std::string effort = argv[++i];
      if (effort != "auto" && effort != "full") {
        std::fprintf(stderr, "kinetics_compile: --effort %s: auto or full\n", effort.c_str());
        return 1;
      }
      full = effort == "full";
    } else if (a == "--cache") {
      cached = true;
    } else if (a == "--sparse") {
      sparse = true;
    } else if (a == "--reactor") {
      reactor = true;
    } else if (a == "--schedule" && i + 1 < argc) {
      schedule = argv[++i];
    } else if (a == "--rows" && i + 1 < argc) {
      rows = std::stoi(argv[++i]);
    } else if (a == "--min-blocks" && i + 1 < argc) {
      min_blocks = std::stoi(argv[++i]);
    } else if (a == "--launches" && i + 1 < argc) {
      launches = std::stoi(argv[++i]);
    } else if (a == "--extra" && i + 1 < argc) {
      extra.push_back(argv[++i]);
    } else if (a == "--opt" && i + 1 < argc) {
      opt = argv[++i];
    } else if (a == "--state" && i + 1 < argc) {
      only_state = argv[++i];
    } else if (a == "--form" && i + 1 < argc) {
      try {
        values_form = kinetics::rate_law_form_named(argv[++i]);
      } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "kinetics_compile: --form: %s\n", e.what());
        return 1;
      }
    } else {
      specs.push_back(a);
    }
  }
  if (specs.empty()) specs = {"h2o2.yaml", "gri30.yaml", "nDodecane_Reitz.yaml:nDodecane_IG"};
  std::printf("%-34s %-18s %-9s %10s %10s %8s %8s %8s %8s\n", "mechanism", "state", "mode", "flops",
              "stmts", "build s", "lower s", "nvrtc s", "host s");
  for (const std::string& spec : specs) {
    const kinetics::Mechanism m = kinetics::load_mechanism(spec);
    const auto second_state =
        reactor ? kinetics::ReactorState::constant_volume : kinetics::ReactorState::concentrations;
    for (auto state : {kinetics::ReactorState::constant_pressure, second_state}) {
      if (!only_state.empty() && only_state != kinetics::reactor_state_name(state)) continue;
      for (Mode mode : {Mode::Value, Mode::Jacobian}) {
        kinetics::RateLawOptions law{state};
        if (mode == Mode::Value) law.form = values_form;
        auto t0 = std::chrono::steady_clock::now();
        const Kernel k = reactor ? kinetics::reactor_rhs_kernel(m, state, law.form)
                                 : kinetics::production_rates_kernel(m, law);
        const double build_s = seconds_since(t0);
        jit::LoweringOptions o;
        o.mode = mode;
        o.width = 0;
        o.rows = rows;
        if (mode == Mode::Jacobian) {  // as ReactorOdes or ReactorCells lower it
          const assembly::AssemblerOptions runs = reactor
                                                      ? kinetics::reactor_odes_assembler_options()
                                                      : kinetics::ReactorCellsOptions{}.assembler;
          o.layout.min_blocks = min_blocks >= 0 ? min_blocks : runs.element_layout.min_blocks;
        }
        o.launches = launches;
        if (full) o.compile_effort = jit::CompileEffort::Full;
        if (schedule == "df") o.schedule = jit::ScheduleKind::DepthFirst;
        if (schedule == "nm") o.schedule = jit::ScheduleKind::NodeMajor;
        if (schedule == "ll") o.schedule = jit::ScheduleKind::LeastLive;
        o.sparse_jacobian = sparse && mode == Mode::Jacobian;
        t0 = std::chrono::steady_clock::now();
        const std::vector<jit::LoweredKernel> parts = jit::lower_launches(k, o);
        if (!compile) {
          for (const jit::LoweredKernel& l : parts) (void)l.cuda_source_sha256();
        }
        const double lower_s = seconds_since(t0);
        t0 = std::chrono::steady_clock::now();
        const auto options_of = [&](const jit::LoweredKernel& l) {
          jit::CompileOptions co = jit::default_compile_options(l, "sm_90");
          if (!opt.empty()) {  // "O<n>": ptxas -O<n>; "fast-<mode>": --Ofast-compile=<mode>
            co.extra.clear();
            co.opt_level = opt[0] == 'O' ? std::stoi(opt.substr(1)) : (opt == "fast-max" ? 0 : 1);
            if (opt.rfind("fast-", 0) == 0) co.extra.push_back("--Ofast-compile=" + opt.substr(5));
          }
          co.extra.insert(co.extra.end(), extra.begin(), extra.end());
          return co;
        };
        jit::KernelCache cold(std::nullopt);  // memory only, empty: every compile is cold
        jit::KernelCache& cache = cached ? jit::KernelCache::global() : cold;
        const std::vector<jit::CudaImage> images = compile
                                                       ? jit::cuda_images(parts, options_of, cache)
                                                       : std::vector<jit::CudaImage>(parts.size());
        const double nvrtc_s = seconds_since(t0);
        double host_s = 0;
        if (host && compile) {
          t0 = std::chrono::steady_clock::now();
          for (const jit::LoweredKernel& l : parts)
            cpu::host_compile(l.symbol, l.host_source, cpu::HostCompileOptions{});
          host_s = seconds_since(t0);
        }
        long long flops = 0;
        size_t statements = 0;
        int live = 0;
        jit::PtxasReport r;
        for (size_t i = 0; i < parts.size(); ++i) {
          flops += parts[i].ops.flops();
          statements += parts[i].statements;
          live = std::max(live, parts[i].max_live);
          const jit::PtxasReport& p = images[i].ptxas;
          r.registers = std::max(r.registers, p.registers);
          r.stack_bytes = std::max(r.stack_bytes, p.stack_bytes);
          r.spill_store_bytes += p.spill_store_bytes;
          r.spill_load_bytes += p.spill_load_bytes;
        }
        std::printf("%-34s %-18s %-9s %10lld %10zu %8.2f %8.3f %8.3f %8.2f", spec.c_str(),
                    std::string(kinetics::reactor_state_name(state)).c_str(),
                    std::string(mode_name(mode)).c_str(), flops, statements, build_s, lower_s,
                    nvrtc_s, host_s);
        if (o.sparse_jacobian) {
          std::printf("  nnz %lld of %lld", (long long)parts[0].first_pattern.nnz(),
                      (long long)k.n_inputs() * k.n_outputs());
        }
        std::printf("  form %s", std::string(kinetics::rate_law_form_name(law.form)).c_str());
        std::printf("  launches %zu  live %d  regs %d stack %d spill %d/%d B\n", parts.size(), live,
                    r.registers, r.stack_bytes, r.spill_store_bytes, r.spill_load_bytes);
        if (std::getenv("DUALJIT_PTXAS_LOG")) {
          for (const jit::CudaImage& img : images) std::printf("%s\n", img.log.c_str());
        }
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
