// FUN3D-style assembly of the Roe flux residual and Jacobian (fp64 Adiag, fp32 Aoff) on a
// box-of-tetrahedra mesh with median-dual edge areas, per strategy and node ordering, with
// CUDA events (warm-up, median of repeats) against the byte floor: inputs (Q, edges, area
// vectors) read once, outputs (residual, Adiag, Aoff) written once, over the device-to-device
// copy bandwidth measured in the same run.
// Aoff by rows (block CSR) or, in the cases marked "edges", in edge-based storage.
// Usage: assembly_strategies [cells per side]   (96 -> 912,673 nodes, about 6.3 M edges)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>

#include "backends/assembly/assembler.h"
#include "backends/tuning/fused_config.h"
#include "backends/tuning/timing.h"
#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_problem.h"

using namespace dualjit;

namespace {

// CUDA events: 3 warm-ups, then the median of 15 runs.
double median_ms(const std::function<void()>& run) {
  return tuning::median_gpu_ms(run, 3, 15);
}

}  // namespace

int main(int argc, char** argv) {
  const int cells = argc > 1 ? std::atoi(argv[1]) : 96;
  if (!cuda::driver_available()) {
    std::printf("no GPU: %s\n", cuda::driver_unavailable_reason().c_str());
    return 1;
  }
  const auto& dev = cuda::Context::primary().device();
  const cfd::TetMesh base = cfd::box_tet_mesh(cells, cells, cells);
  const int64_t n_nodes = base.n_nodes;
  // Copy bandwidth.
  cuda::DeviceBuffer src(1ull << 30), dst(1ull << 30);
  src.fill_bytes(1);
  const double copy_ms = median_ms([&] { dst.copy_from(src, src.bytes()); });
  const double bw = 2.0 * src.bytes() / (copy_ms * 1e-3);
  std::printf("device %s (%s); copy bandwidth %.0f GB/s\n", dev.name.c_str(), dev.arch().c_str(),
              bw / 1e9);

  // DJ_ORDERINGS=natural,random: a subset of the orderings.
  const std::string orderings = std::getenv("DJ_ORDERINGS") ? std::getenv("DJ_ORDERINGS") : "";
  for (const char* ordering : {"natural", "rcm", "random"}) {
    if (!orderings.empty() && orderings.find(ordering) == std::string::npos) continue;
    cfd::TetMesh mesh = base;
    if (std::string(ordering) != "natural") {
      const auto e0 = cfd::build_edge_mesh(mesh);
      const auto perm = std::string(ordering) == "rcm"
                            ? cfd::reverse_cuthill_mckee(n_nodes, e0.edges)
                            : cfd::random_permutation(n_nodes, 7);
      cfd::renumber_nodes(mesh, perm);
    }
    const cfd::EdgeMesh em = cfd::build_edge_mesh(mesh);
    const int64_t n_edges = em.n_edges();
    // Interior edges only: the same work as the peers in bench/peers (no boundary term).
    assembly::Problem p = cfd::roe_problem(em, {}, /*with_boundary=*/false);
    const auto q = cfd::perturbed_state(n_nodes, {}, 0.2, 3);
    const int64_t n_off = p.off_pattern().n_blocks();
    const double in_bytes = n_nodes * 5 * 8.0 + n_edges * (2 * 4 + 3 * 8.0);
    const double out_bytes = n_nodes * (5 + 25) * 8.0 + n_off * 25 * 4.0;
    const double floor_ms = (in_bytes + out_bytes) / bw * 1e3;
    std::printf(
        "\n%s ordering: %lld nodes, %lld edges, %lld off-diagonal blocks; byte floor "
        "%.3f ms (%.2f GB)\n",
        ordering, (long long)n_nodes, (long long)n_edges, (long long)n_off, floor_ms,
        (in_bytes + out_bytes) / 1e9);
    std::printf("%-48s %8s %7s %7s %5s %6s %8s\n", "strategy (kernel)", "ms", "GB/s", "xfloor",
                "regs", "spill", "flop/e");
    struct Case {
      const char* s;  // the strategy (backends/assembly/strategies/strategies.h)
      bool jac, pre_reduce;
      int w, t, b, min_blocks;
      bool single = false;  // fp32 tangents (FusedOptions::single_tangents)
      // Aoff by rows, or in edge-based storage (each edge's two blocks together).
      assembly::OffOrder order = assembly::OffOrder::rows;
    };
    constexpr auto kEdges = assembly::OffOrder::elements;
    // The paper's layouts (width x threads per edge: 1x10, 1x5, 1x2, 5x2, 10x1) are rows
    // 2, 5, 8, 9 and 10; min_blocks > 0 caps registers at 65536 / (threads * min_blocks).
    std::vector<Case> cases = {
        {"scatter-atomic", true, false, 5, 2, 64, 0},    // 0: plain atomics
        {"gather-by-column", true, false, 5, 1, 64, 0},  // 1: atomic-free
        {"staged-scatter", true, false, 5, 2, 64, 0},    // 2..: staged; 5x2
        {"staged-scatter", true, true, 5, 2, 64, 0},
        {"staged-scatter", true, false, 5, 1, 64, 0},
        {"staged-scatter", true, false, 10, 1, 64, 0},  // 10x1
        {"staged-scatter", true, true, 10, 1, 32, 0},
        {"staged-scatter", true, false, 2, 5, 32, 0},
        {"staged-scatter", true, false, 1, 10, 32, 0},  // 1x10
        {"staged-scatter", true, false, 1, 5, 32, 0},   // 1x5
        {"staged-scatter", true, false, 1, 2, 64, 0},   // 1x2
        {"staged-scatter", true, false, 10, 1, 64, 5},  // 11..: register caps
        {"staged-scatter", true, false, 10, 1, 64, 6},
        {"staged-scatter", true, false, 10, 1, 64, 7},
        {"staged-scatter", true, false, 10, 1, 32, 12},
        {"staged-scatter", true, false, 5, 1, 64, 6},
        {"staged-scatter", true, false, 5, 1, 64, 7},
        {"staged-scatter", true, false, 5, 2, 32, 7},
        {"scatter-atomic", false, false, 0, 1, 128, 0},  // 18..: residual only
        {"staged-scatter", false, false, 0, 1, 128, 0},
        {"staged-scatter", false, true, 0, 1, 128, 0},
        {"gather-by-column", false, false, 0, 1, 128, 0},
        // 22..: fp32 tangents, fp64 primal (Jacobian fp32-accurate): fewer registers, so
        // register caps that spill hundreds of bytes in fp64 spill little or nothing here.
        {"staged-scatter", true, false, 10, 1, 64, 0, true},
        {"staged-scatter", true, false, 10, 1, 64, 6, true},
        {"staged-scatter", true, false, 10, 1, 32, 12, true},
        {"staged-scatter", true, false, 5, 1, 64, 0, true},
        {"staged-scatter", true, false, 5, 1, 64, 6, true},
        {"staged-scatter", true, false, 10, 1, 64, 7, true},
        // 28..: pre-reduction by node in shared memory (fewer fp64 atomics).
        {"staged-scatter", true, true, 10, 1, 64, 0},
        {"staged-scatter", true, true, 5, 1, 64, 0},
        {"staged-scatter", true, true, 10, 1, 64, 6, true},
        {"staged-scatter", true, true, 10, 1, 32, 12, true},
        // 32..: staged gather by column (node-owned blocks, one side per tile, no atomics).
        {"staged-gather", true, false, 5, 1, 64, 0},
        {"staged-gather", true, false, 5, 1, 32, 0},
        {"staged-gather", true, false, 5, 1, 64, 0, true},
        {"staged-gather", true, false, 5, 1, 64, 6, true},
        {"staged-gather", false, false, 0, 1, 64, 0},
        {"staged-gather", true, false, 5, 1, 64, 5},  // 37..: register caps
        {"staged-gather", true, false, 5, 1, 64, 7, true},
        {"staged-gather", true, false, 5, 1, 32, 12, true},
        // 40..: warp-specialised staged gather (sm_90): a compute and a write-out warpgroup.
        {"warp-specialized-gather", true, false, 5, 1, 64, 0},
        {"warp-specialized-gather", false, false, 0, 1, 64, 0},
        {"warp-specialized-gather", true, false, 5, 1, 32, 0},
        // 43..: edge-based storage (Aoff written contiguously, element by element).
        {"staged-scatter", true, false, 10, 1, 64, 0, false, kEdges},
        {"staged-scatter", true, false, 10, 1, 64, 6, true, kEdges},
        {"scatter-atomic", true, false, 5, 2, 64, 0, false, kEdges},
        {"staged-gather", true, false, 5, 1, 64, 0, false, kEdges},
        {"staged-scatter", true, false, 10, 1, 32, 0, false, kEdges},
    };
    // DJ_CASES=i,j,...: run only these cases (by index), e.g. under a profiler.
    if (const char* only = std::getenv("DJ_CASES")) {
      std::vector<Case> picked;
      for (const char* c = only; *c;) {
        char* end = nullptr;
        const long i = std::strtol(c, &end, 10);
        if (end == c) break;
        if (i >= 0 && i < static_cast<long>(cases.size())) picked.push_back(cases[i]);
        c = *end ? end + 1 : end;
      }
      cases = picked;
    }
    // Every staged gather (and with DJ_CHECK=1 every case) is checked against the heuristic
    // default's assembly of the same state: max |difference| / max |reference| per output.
    const bool check_all = std::getenv("DJ_CHECK") != nullptr;
    std::vector<double> ref_r;
    mesh::SplitBlockCsr<float> ref_j;
    const auto on_gpu = [](const assembly::FusedOptions& o) {
      assembly::AssemblerOptions ao;
      ao.backend = assembly::Backend::Cuda;
      ao.fused = o;
      return ao;
    };
    {
      assembly::Assembler ref(p, on_gpu(tuning::fused_heuristic(tuning::Target::Cuda, 5, 2, true)));
      ref_j = ref.jacobian_split<float>(q, &ref_r);
    }
    const auto rel = [](const auto& a, const auto& b) {
      double worst = 0, scale = 0;
      for (size_t i = 0; i < b.size(); ++i) scale = std::max(scale, std::abs(double(b[i])));
      for (size_t i = 0; i < b.size(); ++i)
        worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
      return a.size() == b.size() ? worst / std::max(scale, 1e-300) : INFINITY;
    };
    for (const Case& c : cases) {
      assembly::FusedOptions o;
      o.strategy = c.s;
      o.jacobian = c.jac;
      o.width = c.w;
      o.layout = {c.t, c.b, c.min_blocks};
      o.pre_reduce = c.pre_reduce;
      o.single_tangents = c.single;
      try {
        assembly::Assembler da(p, on_gpu(o));
        da.set_state(q);
        const double ms = median_ms([&] {
          if (c.jac) {
            da.run_jacobian_split<float>(nullptr, c.order);
          } else {
            da.run_residual();
          }
        });
        cuda::check_last("assembly");
        const assembly::KernelInfo k = da.kernels()[0];
        const double bytes = c.jac ? in_bytes + out_bytes : in_bytes + n_nodes * 5 * 8.0;
        const std::string label = k.symbol + (c.order == kEdges ? " edges" : "");
        std::printf("%-48s %8.3f %7.0f %7.2f %5d %6d %8d\n", label.c_str(), ms,
                    bytes / (ms * 1e-3) / 1e9, c.jac ? ms / floor_ms : 0.0, k.registers,
                    k.spill_bytes, k.flops);
        if (check_all || c.order == kEdges ||
            std::string(c.s).find("gather") != std::string::npos) {
          std::vector<double> r;
          if (c.jac) {
            const auto j = da.jacobian_split<float>(q, &r, c.order);
            std::printf("    check against the default: residual %.1e, Adiag %.1e, Aoff %.1e",
                        rel(r, ref_r), rel(j.diag, ref_j.diag),
                        rel(j.off.values, ref_j.off.values));
          } else {
            std::printf("    check against the default: residual %.1e", rel(da.residual(q), ref_r));
          }
          std::printf("\n");
        }
      } catch (const std::exception& e) {
        std::printf("%-48s failed: %s\n", "candidate", e.what());
      }
    }
  }
  return 0;
}
