// Laplacian smoothing's gradient (examples/mesh_energy/smoothing.h: the sum of squared edge
// lengths over every vertex, the boundary pinned as the solvers' DOFs) on a bumpy disk
// (energy_bench.h) of 1 M vertices and more (1000000 -> 1,010,941 vertices, 4000000 ->
// 4,012,477), its free vertices perturbed by a fixed formula: the energy and the gradient (every
// vertex's row, as the assembler gives it to a solver, which zeroes the pinned rows) on the GPU
// through assembly::Assembler with its default strategies (node-gather for the gradient), CUDA
// events after warm-up, medians, against the byte floor: positions and edges read once, the
// gradient written once, at the device copy bandwidth measured in the same run. "floor_inc" is
// what node-gather reads instead of the edges: each node's incidence (the other end, an int32,
// per element end; two 32-bit offsets per node, one per local vertex).
//
// Each size runs in two vertex orders, one RESULT line each: "smooth" as the disk's
// subdivision numbers it (each new vertex after all the old ones, so neighbours lie far apart
// in memory), and "smooth-rcm" renumbered by reverse Cuthill-McKee (mesh/reorder.h), as a user
// reorders once; the byte floor is the same. The peer runs on both orders' files.
//
// Checksums, printed by the JAX peer (bench/peers/smooth_jax.py) too: the energy, |g| and g . v
// (v: energy_bench.h's direction).
//
//   smooth_gradient [--write DIR] [--cpu] [--reps N] [--nodes-per-block B] [--min-blocks M]
//                   [VERTICES ...]   (default 1000000 4000000)
// --nodes-per-block and --min-blocks set the kernels' layout (AssemblerOptions::element_layout:
// B threads per GPU block, M blocks per SM that ptxas must fit, a register cap; default 128, 0).
// --write DIR writes DIR/smooth_<VERTICES>.bin and DIR/smooth-rcm_<VERTICES>.bin (edges, x, v)
// for the peer; --cpu prints the checksums from the CPU
// backend without timing (no GPU needed).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "backends/assembly/assembler.h"
#include "backends/mesh/reorder.h"
#include "bench/energy_bench.h"
#include "examples/mesh_energy/smoothing.h"

using namespace dualjit;

int main(int argc, char** argv) {
  const bench::Args args =
      bench::parse_args(argc, argv, {1000000, 4000000}, {"--nodes-per-block", "--min-blocks"});
  double bw = 0;
  if (!bench::open_device(args.cpu, &bw)) return 1;
  for (int64_t size : args.sizes) {
    const auto t0 = std::chrono::steady_clock::now();
    const mesh_energy::TriMesh mesh = bench::bumpy_disk(size);
    const std::string source = "bumpy disk " + std::to_string(size);
    const mesh::ElementSet faces{"faces", 3, mesh.faces};
    const std::vector<int32_t> new_of_old =
        mesh::reverse_cuthill_mckee(mesh.n_vertices(), {&faces});
    mesh_energy::TriMesh rcm = mesh;
    rcm.x = mesh::permute_rows(mesh.x, 3, new_of_old);
    for (int32_t& f : rcm.faces) f = new_of_old[f];
    std::printf("\n%s: %lld vertices; mesh and reordering %.1f s\n", source.c_str(),
                (long long)mesh.n_vertices(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    for (const auto& [name, m] :
         {std::pair<const char*, const mesh_energy::TriMesh&>{"smooth", mesh},
          {"smooth-rcm", rcm}}) {
      mesh_energy::Smoothing s = mesh_energy::smoothing_problem(m, source, true);
      assembly::Problem& p = s.problem;
      const int64_t nv = p.n_nodes();
      // Noise to smooth: a fixed perturbation of the free vertices, small against the edges
      // (about 1e-3 at 1 M); each order has its own state, so its own checksums.
      std::vector<double> x = s.x;
      const double amplitude = 1.0 / std::sqrt(double(m.n_vertices()));
      for (int64_t i = 0; i < nv * 3; ++i)
        if (!s.pinned.is_pinned(i)) x[i] += amplitude * std::sin(0.7 * double(i) + 1.3);
      const std::vector<double> v = bench::direction(nv * 3);
      const std::vector<int32_t>& edges = p.term(0).elements.conn;
      const int64_t ne = int64_t(edges.size() / 2), np = int64_t(s.boundary.size());
      std::printf("%s: %lld vertices (%lld of them pinned), %lld edges\n", name, (long long)nv,
                  (long long)np, (long long)ne);
      std::fflush(stdout);
      if (!args.write_dir.empty()) {
        bench::ArraysFile f;
        f.add("edges", edges, 2);
        f.add("x", x, 3);
        f.add("v", v, 3);
        f.write(bench::data_path(args, name, size));
      }

      assembly::AssemblerOptions o;
      if (args.cpu) o.backend = assembly::Backend::Cpu;
      o.element_layout.elements_per_block = std::stoi(
          args.flag("--nodes-per-block", std::to_string(o.element_layout.elements_per_block)));
      o.element_layout.min_blocks = std::stoi(args.flag("--min-blocks", "0"));
      assembly::Assembler a(p, o);
      double e_ms = 0, g_ms = 0, g_loop_ms = 0, g_host_us = 0;
      if (!args.cpu) {
        a.set_state(x);
        a.run_energy();
        a.run_gradient();
        cuda::check_last("smoothing");
        e_ms = bench::median_ms([&] { a.run_energy(); }, args.reps);
        g_ms = bench::median_ms([&] { a.run_gradient(); }, args.reps);
        // A descent loop queues gradients behind other work: kLoop calls back to back between
        // the events, per call, where the host's time to enqueue a call (g_host_us, its wall
        // clock while the queue is busy) hides behind the kernel before it.
        constexpr int kLoop = 20;
        std::vector<double> host;
        g_loop_ms = bench::median_ms(
                        [&] {
                          const auto t0 = std::chrono::steady_clock::now();
                          for (int i = 0; i < kLoop; ++i) a.run_gradient();
                          host.push_back(std::chrono::duration<double, std::micro>(
                                             std::chrono::steady_clock::now() - t0)
                                             .count() /
                                         kLoop);
                        },
                        args.reps) /
                    kLoop;
        std::sort(host.begin(), host.end());
        g_host_us = host[host.size() / 2];
      }
      const double energy = a.energy(x);
      const std::vector<double> g = a.gradient(x);
      const double bytes = nv * 48.0 + ne * 8.0;
      const double incidence = 2.0 * ne * 4.0 + nv * 8.0 - ne * 8.0;  // in place of the edges
      const double floor_ms = args.cpu ? 0.0 : bytes / bw * 1e3;
      const double floor_inc_ms = args.cpu ? 0.0 : (bytes + incidence) / bw * 1e3;
      std::printf(
          "RESULT %s_dualjit vertices=%lld edges=%lld pinned=%lld layout=%dx%d E_ms=%.4f g_ms=%.4f "
          "g_loop_ms=%.4f g_host_us=%.1f floor_g_ms=%.4f floor_inc_g_ms=%.4f g_over_floor=%.2f "
          "g_loop_over_floor=%.2f energy=%.15g g_norm=%.12g g_dot_v=%.12g\n",
          name, (long long)nv, (long long)ne, (long long)np, o.element_layout.elements_per_block,
          o.element_layout.min_blocks, e_ms, g_ms, g_loop_ms, g_host_us, floor_ms, floor_inc_ms,
          floor_ms > 0 ? g_ms / floor_ms : 0.0, floor_ms > 0 ? g_loop_ms / floor_ms : 0.0, energy,
          bench::norm(g), bench::dot(g, v));
      std::fflush(stdout);
    }
  }
  return 0;
}
