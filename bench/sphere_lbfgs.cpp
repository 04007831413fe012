// Issue 15's spherical parameterization benchmark: time per L-BFGS iteration on a genus-0 mesh,
// against an L-BFGS in JAX (optax) with the same line search (bench/peers/sphere_jax.py, on the
// file --write gives it). The mesh is the sphere demo's lumpy ellipsoid at icosphere levels 5
// and 6 (20,480 and 81,920 faces, either side of the issue's ~30 k), the start its Gauss map
// (examples/mesh_energy/spherical_map.h), the unknowns the tangent-plane offsets (zero at the
// start, one round: no retraction inside the timed run).
//
// L-BFGS (solvers/lbfgs.h): memory 8, Armijo backtracking from a step of 1 halving to c1 = 1e-4,
// infinite energies (an inverted triangle) rejected by the search, a fixed number of iterations
// (no tolerance), so both sides do the same work per iteration: one energy and gradient, an
// L-BFGS direction (optax's two-loop recursion, dualjit's compact form), and the energies of the
// search. Timed end to end on the wall clock after a warm-up solve (the kernels compile there),
// with the objective on the GPU, its vectors in device memory. A second run adds the demo's
// injective max-step rule (evaluated on the device, solvers/element_step_bound.h), which the JAX
// peer has no counterpart of; rule_ms is the rule's time per call.
//
// Printed per level: the energy at the start (the checksum the peer prints too), the energies
// after 10, 50 and all iterations, ms per iteration, and the shares of assembly (gradients),
// line search (energies) and direction (two-loop recursion).
//
//   sphere_lbfgs [--write DIR] [--cpu] [--iterations K] [LEVEL ...]   (default 5 6, K 200)
// --write DIR writes DIR/sphere_<LEVEL>.bin (faces, frames, rest, barrier) for the peer; --cpu
// runs on the CPU backend (no GPU needed).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "backends/assembly/assembler.h"
#include "bench/energy_bench.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/sphere_demo.h"
#include "examples/mesh_energy/spherical_map.h"
#include "solvers/lbfgs.h"
#include "solvers/objective.h"
#include "solvers/stopwatch.h"

using namespace dualjit;

namespace {

struct Run {
  solvers::SolveResult result;
  double ms_per_iteration = 0, assembly = 0, search = 0, direction = 0;
};

Run timed(solvers::Objective& f, const std::vector<double>& x0, solvers::LbfgsOptions o) {
  solvers::LbfgsOptions warm = o;
  warm.max_iterations = 2;
  solvers::lbfgs(f, x0, warm);
  Run r;
  r.result = solvers::lbfgs(f, x0, o);
  for (const auto& k : r.result.iterations) {
    r.assembly += k.assembly_seconds;
    r.search += k.line_search_seconds;
    r.direction += k.linear_solve_seconds;
  }
  const double total = r.result.seconds;
  r.ms_per_iteration = total * 1e3 / std::max(1, r.result.n_steps());
  r.assembly /= total;
  r.search /= total;
  r.direction /= total;
  return r;
}

double energy_after(const solvers::SolveResult& r, size_t k) {
  return r.iterations[std::min(k, r.iterations.size() - 1)].energy;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Args args = bench::parse_args(argc, argv, {5, 6}, {"--iterations"});
  const int iterations = std::atoi(args.flag("--iterations", "200").c_str());
  double bw = 0;
  if (!bench::open_device(args.cpu, &bw)) return 1;
  for (int64_t level : args.sizes) {
    const mesh_energy::TriMesh mesh = mesh_energy::lumpy_ellipsoid(int(level));
    const std::string source = "lumpy ellipsoid(" + std::to_string(level) + ")";
    const mesh_energy::SphericalMap map(mesh, source, mesh_energy::gauss_map(mesh));
    assembly::Problem problem = map.problem();
    const int64_t nv = mesh.n_vertices(), nf = mesh.n_faces();
    std::printf("\n%s: %lld vertices, %lld faces, %lld inverted at the start\n", source.c_str(),
                (long long)nv, (long long)nf, (long long)map.inverted());
    if (!args.write_dir.empty()) {
      bench::ArraysFile file;
      file.add("faces", mesh.faces, 3);
      std::vector<double> frames(nv * 9);
      for (int64_t v = 0; v < nv; ++v) {
        std::copy_n(&map.points()[v * 3], 3, &frames[v * 9]);
        std::copy_n(&map.frames()[v * 6], 6, &frames[v * 9 + 3]);
      }
      file.add("frames", frames, 9);
      // The kernel's per-face rest parameters (Dm^-1 row-major, area) follow the three
      // corners' frames in the term's params: 32 per face.
      const std::vector<double>& params = problem.term(0).params;
      std::vector<double> rest(nf * 5);
      for (int64_t f = 0; f < nf; ++f) std::copy_n(&params[f * 32 + 27], 5, &rest[f * 5]);
      file.add("rest", rest, 5);
      file.add_scalar("barrier", map.barrier());
      file.write(bench::data_path(args, "sphere", level));
    }

    assembly::AssemblerOptions ao;
    if (args.cpu) ao.backend = assembly::Backend::Cpu;
    assembly::Assembler a(problem, ao);
    solvers::AssemblerObjective objective(a);
    const std::vector<double> zero(nv * 2, 0.0);
    solvers::LbfgsOptions lo;
    lo.memory = 8;
    lo.max_iterations = iterations;
    lo.gradient_tolerance = 0;
    lo.relative_gradient_tolerance = 0;
    const Run plain = timed(objective, zero, lo);
    solvers::LbfgsOptions ruled = lo;
    // The rule's time per call: where the objective's vectors are (the GPU kernel and its
    // read-back, or the host loop).
    const solvers::ElementStepBound bound =
        mesh_energy::injective_step_bound(objective.space(), map);
    double rule_seconds = 0;
    int rule_calls = 0;
    ruled.line_search.max_step = [&](const solvers::Vector& x, const solvers::Vector& dx) {
      const solvers::Stopwatch t;
      const double alpha = bound(x, dx);
      rule_seconds += t.seconds();
      ++rule_calls;
      return alpha;
    };
    const Run injective = timed(objective, zero, ruled);
    for (const auto& [name, r] :
         {std::pair{"armijo", &plain}, std::pair{"injective", &injective}}) {
      const solvers::SolveResult& s = r->result;
      int evaluations = 0;
      for (const auto& k : s.iterations) evaluations += k.line_search_evaluations;
      std::printf(
          "RESULT sphere_lbfgs backend=%s search=%s level=%lld vertices=%lld faces=%lld "
          "iterations=%d ms_per_iteration=%.4f energies_per_iteration=%.2f assembly_share=%.2f "
          "line_search_share=%.2f direction_share=%.2f energy0=%.15g energy10=%.15g "
          "energy50=%.15g energy=%.15g rule_ms=%.4f stop=%s\n",
          args.cpu ? "cpu" : "cuda", name, (long long)level, (long long)nv, (long long)nf,
          s.n_steps(), r->ms_per_iteration, double(evaluations) / std::max(1, s.n_steps()),
          r->assembly, r->search, r->direction, energy_after(s, 0), energy_after(s, 10),
          energy_after(s, 50), s.energy,
          r == &injective ? rule_seconds * 1e3 / std::max(1, rule_calls) : 0.0,
          std::string(solvers::stop_reason_name(s.reason)).c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}
