// Symmetric Dirichlet parameterization (examples/mesh_energy/symmetric_dirichlet.h,
// parameterization.h) at the per-element AD paper's Table 2 sizes: a bumpy disk (energy_bench.h)
// subdivided twice, 160000 -> 162,169 vertices (322,944 faces), 560000 -> 561,169 (1,119,744),
// 1800000 -> 1,808,857 (3,613,056), at the coarse disk's Tutte embedding (uniform weights)
// subdivided along and scaled to the rest area as parameterization() scales its own (which
// would solve Tutte's system on the fine mesh: minutes). Timed on the GPU through
// assembly::Assembler with its default strategies, CUDA events after warm-up, medians: the
// energy, the gradient, the Hessian-vector product (state and direction already on the device:
// set_state, set_direction, then run_hvp only), the Hessian (2x2 blocks, both triangles) and the
// PD-projected Hessian (each face's 6x6 Hessian clamped to eigenvalues >= 1e-9,
// AssemblerOptions::hessian_projection); each against its byte floor (inputs read once, outputs
// written once, at the device copy bandwidth measured in the same run). Then a few Newton-CG
// steps (solvers/newton_cg.h, flip-free line search) through AssemblerObjective, whose vectors
// stay on the GPU: a CG iteration reads back p.Hp and r.r, and the flip-free bound runs on the
// device (solvers/element_step_bound.h). ms_per_step is the solve's wall time over its steps
// (the start's upload, energy and gradient and the end's download included); step_ms sums the
// steps' own records. Then the parts of a CG iteration, each timed alone on the solution
// (sd_cg_parts): the objective's H v call (copies of x and v in, of H v out, and the kernel), a
// dot with its read-back, an axpby; a CG iteration is one call, two dots and three axpbys.
//
// Checksums, printed by the peers too (bench/peers/sd_jax.py, sd_torch.py): the energy, |g|,
// g . v, |H v|, v . H v (v: energy_bench.h's direction), |H|_F, v^T H v from the assembled
// blocks, |Hp|_F. Sums would be round-off: the energy is translation invariant.
//
//   sd_hvp [--write DIR] [--cpu] [--reps N] [--newton-steps K] [VERTICES ...]
//          (default 160000 560000 1800000; K default 3, 0 skips Newton-CG)
// --write DIR writes DIR/sd_<VERTICES>.bin (faces, params, uv, v) for the peers; --cpu prints
// the checksums from the CPU backend without timing (no GPU needed), and runs Newton-CG there.
#include <chrono>
#include <cstdio>
#include <vector>

#include "backends/assembly/assembler.h"
#include "bench/energy_bench.h"
#include "bench/wall_clock.h"
#include "examples/mesh_energy/parameterization.h"
#include "solvers/newton_cg.h"
#include "solvers/objective.h"

using namespace dualjit;
using bench::seconds_since;

int main(int argc, char** argv) {
  const bench::Args args =
      bench::parse_args(argc, argv, {160000, 560000, 1800000}, {"--newton-steps"});
  const int newton_steps = std::atoi(args.flag("--newton-steps", "3").c_str());
  double bw = 0;
  if (!bench::open_device(args.cpu, &bw)) return 1;
  for (int64_t size : args.sizes) {
    const auto t0 = std::chrono::steady_clock::now();
    const mesh_energy::TriMesh mesh = bench::bumpy_disk(size, 2, true);
    const std::string source = "bumpy disk " + std::to_string(size);
    assembly::Problem problem = mesh_energy::symmetric_dirichlet_problem(mesh, source);
    const int64_t nv = mesh.n_vertices(), nf = mesh.n_faces();
    // Scaled so that the UV area is the rest area, as parameterization() does: the energy's
    // minimum is at that scale.
    std::vector<double> uv = mesh.uv;
    const std::vector<double>& params = problem.term(0).params;
    double rest = 0, flat = 0;
    for (int64_t f = 0; f < nf; ++f) {
      const int32_t* t = &mesh.faces[f * 3];
      rest += params[f * 5 + 4];
      flat += 0.5 * ((uv[t[1] * 2] - uv[t[0] * 2]) * (uv[t[2] * 2 + 1] - uv[t[0] * 2 + 1]) -
                     (uv[t[1] * 2 + 1] - uv[t[0] * 2 + 1]) * (uv[t[2] * 2] - uv[t[0] * 2]));
    }
    for (double& c : uv) c *= std::sqrt(rest / flat);
    const std::vector<double> v = bench::direction(nv * 2);
    std::printf("\n%s: %lld vertices, %lld faces, %lld flipped at the start; mesh %.1f s\n",
                source.c_str(), (long long)nv, (long long)nf,
                (long long)mesh_energy::count_flipped(mesh.faces, uv), seconds_since(t0));
    std::fflush(stdout);
    if (!args.write_dir.empty()) {
      bench::ArraysFile f;
      f.add("faces", mesh.faces, 3);
      f.add("params", params, 5);
      f.add("uv", uv, 2);
      f.add("v", v, 2);
      f.write(bench::data_path(args, "sd", size));
    }

    assembly::AssemblerOptions o, po;
    po.hessian_projection = {jit::ProjectionKind::Clamp, 1e-9};
    if (args.cpu) o.backend = po.backend = assembly::Backend::Cpu;
    assembly::Assembler a(problem, o), projected(problem, po);
    double e_ms = 0, g_ms = 0, hv_ms = 0, h_ms = 0, hp_ms = 0;
    if (!args.cpu) {
      a.set_state(uv);
      a.set_direction(v);
      a.run_energy();
      a.run_gradient();
      a.run_hvp();
      a.run_hessian();
      projected.set_state(uv);
      projected.run_hessian();
      cuda::check_last("symmetric Dirichlet");
      e_ms = bench::median_ms([&] { a.run_energy(); }, args.reps);
      g_ms = bench::median_ms([&] { a.run_gradient(); }, args.reps);
      hv_ms = bench::median_ms([&] { a.run_hvp(); }, args.reps);
      h_ms = bench::median_ms([&] { a.run_hessian(); }, args.reps);
      hp_ms = bench::median_ms([&] { projected.run_hessian(); }, args.reps);
    }
    const double energy = a.energy(uv);
    const std::vector<double> g = a.gradient(uv), hv = a.hvp(uv, v);
    const mesh::BlockCsr<double> h = a.hessian(uv), hp = projected.hessian(uv);
    const int64_t blocks = h.pattern->n_blocks();
    // Bytes: uv (16 per vertex), faces (12) and params (40) per face, read once; outputs once.
    const double in = nv * 16.0 + nf * 52.0;
    const double floor_g = (in + nv * 16.0) / bw * 1e3, floor_hv = (in + nv * 32.0) / bw * 1e3,
                 floor_h = (in + blocks * 32.0) / bw * 1e3;
    std::printf(
        "RESULT sd_dualjit vertices=%lld faces=%lld blocks=%lld E_ms=%.4f g_ms=%.4f hvp_ms=%.4f "
        "H_ms=%.4f Hp_ms=%.4f floor_g_ms=%.4f floor_hvp_ms=%.4f floor_H_ms=%.4f energy=%.15g "
        "g_norm=%.12g g_dot_v=%.12g hv_norm=%.12g v_hv=%.12g H_fro=%.12g H_vhv=%.12g "
        "Hp_fro=%.12g\n",
        (long long)nv, (long long)nf, (long long)blocks, e_ms, g_ms, hv_ms, h_ms, hp_ms,
        args.cpu ? 0.0 : floor_g, args.cpu ? 0.0 : floor_hv, args.cpu ? 0.0 : floor_h, energy,
        bench::norm(g), bench::dot(g, v), bench::norm(hv), bench::dot(v, hv),
        bench::frobenius(h.values), bench::vhv(h, v), bench::frobenius(hp.values));
    std::fflush(stdout);

    if (newton_steps <= 0) continue;
    // Newton-CG from Tutte's start, as a parameterization would run it; the first solve is a
    // warm-up (kernels and structure are built already, but host allocations are not).
    solvers::AssemblerObjective objective(a);
    solvers::NewtonCgOptions no;
    no.max_iterations = newton_steps;
    no.gradient_tolerance = 0;
    no.relative_gradient_tolerance = 0;
    no.decrement_tolerance = 0;
    no.max_cg_iterations = 200;
    // The flip-free bound's time per call: where the objective's vectors are (the GPU kernel
    // and its read-back, or the host loop).
    const solvers::ElementStepBound bound =
        mesh_energy::flip_free_step_bound(objective.space(), mesh.faces, mesh.n_vertices());
    double rule_seconds = 0;
    int rule_calls = 0;
    no.line_search.max_step = [&](const solvers::Vector& x, const solvers::Vector& dx) {
      const auto t = std::chrono::steady_clock::now();
      const double alpha = bound(x, dx);
      rule_seconds += seconds_since(t);
      ++rule_calls;
      return alpha;
    };
    solvers::NewtonCgOptions warm = no;
    warm.max_iterations = 1;
    solvers::newton_cg(objective, uv, warm);
    const solvers::SolveResult r = solvers::newton_cg(objective, uv, no);
    double assembly_s = 0, linear_s = 0, search_s = 0;
    int cg = 0;
    for (const auto& k : r.iterations) {
      assembly_s += k.assembly_seconds;  // the HVPs, and one gradient per step
      linear_s += k.linear_solve_seconds;
      search_s += k.line_search_seconds;
      cg += k.linear_iterations;
    }
    const int steps = std::max(1, r.n_steps());
    std::printf("%s", solvers::format_log(r).c_str());
    std::printf(
        "RESULT sd_newton_cg vertices=%lld steps=%d ms_per_step=%.3f cg_per_step=%.1f "
        "assembly_ms_per_cg_iteration=%.4f assembly_share=%.2f cg_vector_share=%.2f "
        "line_search_share=%.2f rule_ms=%.3f energy0=%.15g energy=%.15g\n",
        (long long)nv, r.n_steps(), r.seconds * 1e3 / steps, double(cg) / steps,
        cg ? assembly_s * 1e3 / cg : 0.0, assembly_s / r.seconds, linear_s / r.seconds,
        search_s / r.seconds, rule_seconds * 1e3 / std::max(1, rule_calls), energy, r.energy);
    std::fflush(stdout);
    if (args.cpu) continue;
    double step_s = 0;
    for (const auto& k : r.iterations) step_s += k.seconds;
    const solvers::VectorSpace& space = objective.space();
    const solvers::Vector x = space.from_host(r.x), p = space.from_host(v);
    solvers::Vector hv_out = space.zeros(nv * 2), y = space.zeros(nv * 2);
    const double call_ms = bench::median_ms([&] { objective.hvp(x, p, hv_out); }, args.reps);
    const double dot_ms = bench::median_ms([&] { space.dot(p, hv_out); }, args.reps);
    const double axpby_ms = bench::median_ms([&] { space.axpby(0.5, p, 1, y); }, args.reps);
    std::printf(
        "RESULT sd_cg_parts vertices=%lld step_ms=%.3f cg_iteration_ms=%.4f hvp_call_ms=%.4f "
        "hvp_kernel_ms=%.4f dot_ms=%.4f axpby_ms=%.4f cg_iteration_parts_ms=%.4f\n",
        (long long)nv, step_s * 1e3 / steps, cg ? (assembly_s + linear_s) * 1e3 / cg : 0.0, call_ms,
        hv_ms, dot_ms, axpby_ms, call_ms + 2 * dot_ms + 3 * axpby_ms);
    std::fflush(stdout);
  }
  return 0;
}
