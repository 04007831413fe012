// The first pass of a tape design for the (T, Y) Jacobian (bench/RESULTS.md, "the design the
// Jacobian's targets need"): every reaction's rate of progress q_r and its tangent, computed
// once per cell and stored, so that the Jacobian's rows could be composed from them instead of
// each row group recomputing them. This program times that pass alone, which bounds what the
// design can reach. Its kernel's outputs are the mechanism's q_r of the state
// (T, C), with the total concentration p/RT (constant pressure) so that dq/dC keeps the
// reactions' own sparsity (the third-body species whose efficiency differs from the default
// included); the kernel's Jacobian without structural zeros (ReactorCells::sparse_jacobian) is
// the tape's tangents. Prints nnz per cell, the median time (CUDA events after warm-up), the
// byte floor, the seconds to a first result with an empty kernel cache (what a user waits for
// compiles), and each launch's registers and spills (what bounds its occupancy).
//
//   kinetics_tape_probe [--mechanism FILE[:PHASE]] [--rows R] [--min-blocks M] [--reps N]
//                       [--pressure-atm P] [--cpu] [CELLS ...]
//     (default gri30.yaml, rows 16, full effort, 100000 1000000)
// --cpu: the CPU backend (no GPU needed; nnz and the lowering, a wall-clock time that is no
// benchmark).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "backends/cuda/driver.h"
#include "bench/energy_bench.h"
#include "bench/kinetics_states.h"
#include "bench/wall_clock.h"
#include "examples/kinetics/cell_state.h"
#include "examples/kinetics/rate_laws.h"
#include "examples/kinetics/reactor_cells.h"
#include "jit/lowering.h"

using namespace dualjit;
using kinetics::Mechanism;

namespace {

// The state's width: the assembler wants a term's output as wide as its node's block, so the
// state (T, C_1..C_ns) is padded with unused components up to one per reaction.
size_t state_width(const Mechanism& m) {
  return std::max(m.species.size() + 1, m.reactions.size());
}

// Outputs "progress": q_r of every reaction, of "state" = (T, C_1..C_ns, padding),
// C_tot = p/RT.
Kernel progress_kernel(const Mechanism& m, double pressure) {
  return Kernel("kinetics_tape_probe_" + m.phase, [&](KernelBuilder& kb) {
    const auto x = kb.input("state", static_cast<int>(state_width(m)));
    kinetics::CellState s;
    s.T = x[0];
    s.C.assign(x.begin() + 1, x.begin() + 1 + m.species.size());
    s.C_tot = pressure / (kinetics::kGasConstant * s.T);
    s.log_p = s.T.constant(std::log(pressure));
    const kinetics::RateLaws laws = kinetics::rate_laws(m, s, kinetics::RateLawForm::derivatives);
    kb.output("progress", laws.rop);
  });
}

// kinetics_rates' cells as (T, C) at pressure p, each padded with zeros to state_width.
std::vector<double> random_states(int64_t n, const Mechanism& m, double p, uint64_t seed) {
  const size_t b = m.species.size() + 1, w = state_width(m);
  const std::vector<double> c =
      bench::as_concentrations(bench::random_kinetics_states(n, int(b) - 1, seed), m, p);
  std::vector<double> x(size_t(n) * w, 0.0);
  for (int64_t e = 0; e < n; ++e) std::copy_n(&c[size_t(e) * b], b, &x[size_t(e) * w]);
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  std::string spec = "gri30.yaml";
  int rows = 16, min_blocks = 0, reps = 7;
  double p_atm = 10;
  bool cpu = false;
  std::vector<int64_t> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "kinetics_tape_probe: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--mechanism")
      spec = value();
    else if (a == "--rows")
      rows = std::stoi(value());
    else if (a == "--min-blocks")
      min_blocks = std::stoi(value());
    else if (a == "--reps")
      reps = std::stoi(value());
    else if (a == "--pressure-atm")
      p_atm = std::stod(value());
    else if (a == "--cpu")
      cpu = true;
    else
      sizes.push_back(std::stoll(a));
  }
  if (sizes.empty())
    sizes = cpu ? std::vector<int64_t>{100} : std::vector<int64_t>{100000, 1000000};
  if (!cpu && !cuda::driver_available()) {
    std::printf("no GPU: %s\n", cuda::driver_unavailable_reason().c_str());
    return 1;
  }
  const Mechanism m = kinetics::load_mechanism(spec);
  const double p = p_atm * kinetics::kOneAtm;
  const size_t B = m.species.size() + 1, nr = m.reactions.size();
  const double bandwidth = cpu ? 0.0 : bench::copy_bandwidth();
  std::printf(
      "kinetics_tape_probe: %s (%zu species, %zu reactions), rows %d, min blocks %d, %s, "
      "copy bandwidth %.0f GB/s\n",
      m.file.c_str(), B - 1, nr, rows, min_blocks,
      cpu ? "CPU" : cuda::Context::primary().device().name.c_str(), bandwidth / 1e9);
  for (int64_t n : sizes) {
    kinetics::ReactorCellsOptions o;
    o.rate_law.state = kinetics::ReactorState::concentrations;  // no uniform
    o.assembler.backend = cpu ? assembly::Backend::Cpu : assembly::Backend::Cuda;
    o.assembler.compile_effort = jit::CompileEffort::Full;
    o.assembler.element_rows = rows;
    o.assembler.element_layout.min_blocks = min_blocks;
    kinetics::ReactorCells cells(progress_kernel(m, p), n, o);
    assembly::Assembler& a = cells.assembler();
    const size_t nnz = size_t(cells.jacobian_pattern().nnz());
    if (cpu) {
      const std::vector<double> states = random_states(n, m, p, 20261124);
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<double> j = cells.sparse_jacobian(states);
      std::printf(
          "RESULT kinetics_tape_probe cpu cells=%lld nnz=%zu dense=%zu first_call_s=%.3f "
          "values=%zu\n",
          (long long)n, nnz, nr * B, bench::seconds_since(t0), j.size());
      jit::LoweringOptions lo;  // as the GPU's element assembly lowers it
      lo.mode = Mode::Jacobian;
      lo.width = 0;
      lo.rows = rows;
      lo.sparse_jacobian = true;
      lo.compile_effort = jit::CompileEffort::Full;
      int flops = 0, most = 0;
      const auto launches = jit::lower_launches(progress_kernel(m, p), lo);
      for (const jit::LoweredKernel& l : launches) {
        flops += l.ops.flops();
        most = std::max(most, l.ops.flops());
      }
      std::printf("  %zu launches, %d flops a cell (the largest launch %d)\n", launches.size(),
                  flops, most);
      continue;
    }
    a.set_state(random_states(n, m, p, 20261124));
    cuda::check_last("set_state");
    const auto t1 = std::chrono::steady_clock::now();
    a.run_element_sparse_blocks(0);
    cuda::check_last("tape probe: sparse Jacobian");
    const double first_s = bench::seconds_since(t1);
    const double ms = bench::median_ms([&] { a.run_element_sparse_blocks(0); }, reps);
    // The tape as the design stores it: the tangents and the values q_r.
    const double floor_ms = double(n) * 8.0 * (double(B) + double(nnz)) / bandwidth * 1e3;
    const double tape_floor_ms = double(n) * 8.0 * (double(B) + double(nnz + nr)) / bandwidth * 1e3;
    std::printf(
        "RESULT kinetics_tape_probe cells=%lld nnz=%zu dense=%zu tape_ms=%.4f floor_ms=%.4f "
        "floor_with_values_ms=%.4f first_call_s=%.3f\n",
        (long long)n, nnz, nr * B, ms, floor_ms, tape_floor_ms, first_s);
    for (const assembly::KernelInfo& k : cells.kernels())
      std::printf("  kernel %s flops=%d registers=%d spill_bytes=%d\n", k.symbol.c_str(), k.flops,
                  k.registers, k.spill_bytes);
    std::fflush(stdout);
  }
  return 0;
}
