// FUN3D-style assembly of the Roe flux residual and Jacobian (fp64 Adiag, fp32 Aoff) on a
// box-of-tetrahedra mesh with median-dual edge areas, per strategy and node ordering, with
// CUDA events (warm-up, median of repeats) against the byte floor: inputs (Q, edges, area
// vectors) read once, outputs (residual, Adiag, Aoff) written once, over the device-to-device
// copy bandwidth measured in the same run.
// Usage: assembly_strategies [cells per side]   (96 -> 884,736 nodes, about 6.2 M edges)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "backends/assembly/fused_assembly.h"
#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_flux.h"

using namespace dualjit;

namespace {

template <class F>
float median_ms(F&& run, int reps = 15) {
  cuda::Event a, b;
  for (int i = 0; i < 3; ++i) run();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    a.record();
    run();
    b.record();
    b.synchronize();
    t.push_back(cuda::Event::elapsed_ms(a, b));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
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
  const float copy_ms = median_ms([&] { dst.copy_from(src, src.bytes()); });
  const double bw = 2.0 * src.bytes() / (copy_ms * 1e-3);
  std::printf("device %s (%s); copy bandwidth %.0f GB/s\n", dev.name.c_str(), dev.arch().c_str(),
              bw / 1e9);

  for (const char* ordering : {"natural", "rcm", "random"}) {
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
    assembly::Problem p(n_nodes, 5);
    assembly::Term t;
    t.name = "interior edges";
    t.kernel = std::make_shared<Kernel>(cfd::roe_flux_kernel());
    t.elements = {"edges", 2, em.edges};
    t.output_scatter = {{{0, 1.0}, {1, -1.0}}};
    t.params = em.area;
    t.uniforms = {1.4};
    p.add_term(std::move(t));
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> d(-0.2, 0.2);
    std::vector<double> q(n_nodes * 5);
    for (int64_t i = 0; i < n_nodes; ++i) {
      q[i * 5] = 1.0 + d(rng);
      q[i * 5 + 1] = 0.3 + d(rng);
      q[i * 5 + 2] = 0.1 + d(rng);
      q[i * 5 + 3] = d(rng);
      q[i * 5 + 4] = 2.5 + d(rng);
    }
    const int64_t n_off = p.off_pattern().n_blocks();
    const double in_bytes = n_nodes * 5 * 8.0 + n_edges * (2 * 4 + 3 * 8.0);
    const double out_bytes = n_nodes * (5 + 25) * 8.0 + n_off * 25 * 4.0;
    const double floor_ms = (in_bytes + out_bytes) / bw * 1e3;
    std::printf(
        "\n%s ordering: %lld nodes, %lld edges, %lld off-diagonal blocks; byte floor "
        "%.3f ms (%.2f GB)\n",
        ordering, (long long)n_nodes, (long long)n_edges, (long long)n_off, floor_ms,
        (in_bytes + out_bytes) / 1e9);
    std::printf("%-44s %8s %7s %5s %6s\n", "strategy (kernel)", "ms", "xfloor", "regs", "spill");
    struct Case {
      jit::AssemblyStrategy s;
      bool jac;
      int w, t, b;
    };
    for (Case c : {Case{jit::AssemblyStrategy::ScatterAtomic, true, 5, 1, 128},
                   Case{jit::AssemblyStrategy::ScatterAtomic, true, 5, 2, 64},
                   Case{jit::AssemblyStrategy::ScatterAtomic, true, 10, 1, 128},
                   Case{jit::AssemblyStrategy::ScatterAtomic, true, 1, 2, 64},
                   Case{jit::AssemblyStrategy::GatherByColumn, true, 5, 1, 128},
                   Case{jit::AssemblyStrategy::GatherByColumn, true, 5, 1, 64},
                   Case{jit::AssemblyStrategy::ScatterAtomic, false, 0, 1, 128},
                   Case{jit::AssemblyStrategy::GatherByColumn, false, 0, 1, 128}}) {
      assembly::FusedOptions o;
      o.strategy = c.s;
      o.jacobian = c.jac;
      o.width = c.w;
      o.layout = {c.t, c.b};
      assembly::DeviceAssembly<float> da(p, o);
      da.set_state(q);
      const float ms = median_ms([&] { da.run(); });
      cuda::check_last("assembly");
      const auto& k = *da.kernels()[0];
      std::printf("%-44s %8.3f %7.2f %5d %6d\n", k.lowered().symbol.c_str(), ms,
                  c.jac ? ms / floor_ms : 0.0, k.attributes().registers,
                  k.attributes().local_bytes);
    }
  }
  return 0;
}
