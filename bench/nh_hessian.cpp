// Stable Neo-Hookean elasticity (examples/mesh_energy/neo_hookean.h) on cfd::box_tet_mesh(n, n,
// n) of the unit cube (6 n^3 tets: n = 55 is about 1 M), in a deformed configuration (a fixed
// shear, stretch and bend plus a small perturbation per coordinate, the same formula for every
// n): what one Newton step assembles, on the GPU through assembly::Assembler with its default
// strategies, CUDA events after warm-up, medians: the energy, the gradient, the Hessian (3x3
// blocks, both triangles), the PD-projected Hessian (each tet's 12x12 Hessian clamped to
// eigenvalues >= 1e-9, AssemblerOptions::hessian_projection) and gradient + projected Hessian
// together, with the default matrix strategy (staged-node-gather: each tet's Hessian evaluated
// and projected once per vertex), node-gather (the same, unstaged; Hp_ng_ms) and element-scatter
// (once per tet, atomics; Hp_es_ms);
// against the byte floor of gradient + Hessian (positions, tets and params read once,
// gradient and blocks written once, at the device copy bandwidth measured in the same run).
// E = 1e5, nu = 0.4.
//
// Checksums, printed by the JAX peer (bench/peers/nh_jax.py) too: the energy, |g|, g . v,
// |H|_F, v^T H v from the assembled blocks, |Hp|_F (v: energy_bench.h's direction).
//
//   nh_hessian [--write DIR] [--cpu] [--reps N] [N ...]   (cells per side; default 55)
// --write DIR writes DIR/nh_<N>.bin (tets, params, x, v, mu, lambda) for the peer; --cpu prints
// the checksums from the CPU backend without timing (no GPU needed).
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "backends/assembly/assembler.h"
#include "bench/energy_bench.h"
#include "examples/cfd/tet_mesh.h"
#include "examples/mesh_energy/neo_hookean.h"

using namespace dualjit;

int main(int argc, char** argv) {
  const bench::Args args = bench::parse_args(argc, argv, {55}, {});
  double bw = 0;
  if (!bench::open_device(args.cpu, &bw)) return 1;
  const mesh_energy::Lame lame = mesh_energy::lame_parameters(1e5, 0.4);
  for (int64_t n : args.sizes) {
    const auto t0 = std::chrono::steady_clock::now();
    const cfd::TetMesh mesh = cfd::box_tet_mesh(int(n), int(n), int(n));
    const int64_t nv = mesh.n_nodes, nt = mesh.n_tets();
    const std::vector<double> params = mesh_energy::neo_hookean_params(mesh.xyz, mesh.tets);
    std::vector<double> x(nv * 3);
    const double h = 1.0 / double(n);
    for (int64_t i = 0; i < nv; ++i) {
      const double* p = &mesh.xyz[i * 3];
      const double d[3] = {1.1 * p[0] + 0.1 * p[1] * p[2], 0.95 * p[1] + 0.05 * std::sin(3 * p[2]),
                           p[2] + 0.1 * p[0] * p[1]};
      for (int c = 0; c < 3; ++c)
        x[i * 3 + c] = d[c] + 0.1 * h * std::sin(0.7 * double(i * 3 + c) + 0.3);
    }
    const std::vector<double> v = bench::direction(nv * 3);
    assembly::Problem problem(nv, 3);
    assembly::Term t;
    t.name = "elastic";
    t.kernel = std::make_shared<Kernel>(mesh_energy::stable_neo_hookean_kernel());
    t.elements = {"tets", 4, mesh.tets};
    t.energy = true;
    t.params = params;
    t.uniforms = {lame.mu, lame.lambda};
    problem.add_term(std::move(t));
    std::printf("\nbox %lld^3: %lld nodes, %lld tets; mesh %.1f s\n", (long long)n, (long long)nv,
                (long long)nt,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::fflush(stdout);
    if (!args.write_dir.empty()) {
      bench::ArraysFile f;
      f.add("tets", mesh.tets, 4);
      f.add("params", params, 10);
      f.add("x", x, 3);
      f.add("v", v, 3);
      f.add_scalar("mu", lame.mu);
      f.add_scalar("lambda", lame.lambda);
      f.write(bench::data_path(args, "nh", n));
    }

    assembly::AssemblerOptions o, po;
    po.hessian_projection = {jit::ProjectionKind::Clamp, 1e-9};
    if (args.cpu) o.backend = po.backend = assembly::Backend::Cpu;
    assembly::AssemblerOptions eso = po, ngo = po;
    eso.matrix_strategy = assembly::ElementStrategy::Scatter;
    ngo.matrix_strategy = assembly::ElementStrategy::NodeGather;
    assembly::Assembler a(problem, o), projected(problem, po), projected_es(problem, eso),
        projected_ng(problem, ngo);
    double e_ms = 0, g_ms = 0, h_ms = 0, hp_ms = 0, hp_ng_ms = 0, hp_es_ms = 0, ghp_ms = 0;
    if (!args.cpu) {
      a.set_state(x);
      projected.set_state(x);
      a.run_energy();
      a.run_gradient();
      a.run_hessian();
      projected.run_gradient();
      projected.run_hessian();
      projected_es.set_state(x);
      projected_es.run_hessian();
      projected_ng.set_state(x);
      projected_ng.run_hessian();
      cuda::check_last("neo-Hookean");
      e_ms = bench::median_ms([&] { a.run_energy(); }, args.reps);
      g_ms = bench::median_ms([&] { a.run_gradient(); }, args.reps);
      h_ms = bench::median_ms([&] { a.run_hessian(); }, args.reps);
      hp_ms = bench::median_ms([&] { projected.run_hessian(); }, args.reps);
      hp_ng_ms = bench::median_ms([&] { projected_ng.run_hessian(); }, args.reps);
      hp_es_ms = bench::median_ms([&] { projected_es.run_hessian(); }, args.reps);
      ghp_ms = bench::median_ms(
          [&] {
            projected.run_gradient();
            projected.run_hessian();
          },
          args.reps);
    }
    const double energy = a.energy(x);
    const std::vector<double> g = a.gradient(x);
    const mesh::BlockCsr<double> hs = a.hessian(x), hp = projected.hessian(x),
                                 hp_es = projected_es.hessian(x);
    const int64_t blocks = hs.pattern->n_blocks();
    const double bytes = nv * 48.0 + nt * 96.0 + blocks * 72.0;
    std::printf(
        "RESULT nh_dualjit n=%lld nodes=%lld tets=%lld blocks=%lld E_ms=%.4f g_ms=%.4f H_ms=%.4f "
        "Hp_ms=%.4f Hp_ng_ms=%.4f Hp_es_ms=%.4f gHp_ms=%.4f floor_gH_ms=%.4f energy=%.15g "
        "g_norm=%.12g "
        "g_dot_v=%.12g H_fro=%.12g H_vhv=%.12g Hp_fro=%.12g Hp_es_fro=%.12g\n",
        (long long)n, (long long)nv, (long long)nt, (long long)blocks, e_ms, g_ms, h_ms, hp_ms,
        hp_ng_ms, hp_es_ms, ghp_ms, args.cpu ? 0.0 : bytes / bw * 1e3, energy, bench::norm(g),
        bench::dot(g, v), bench::frobenius(hs.values), bench::vhv(hs, v),
        bench::frobenius(hp.values), bench::frobenius(hp_es.values));
    std::fflush(stdout);
  }
  return 0;
}
