// The cloth's Newton solve end to end on the GPU (issue 15: "the Newton step end to end
// (assembly, projection, linear solve) and what share each takes"): one implicit-Euler step of
// the n x n spring grid of bench/cloth_step.cpp, from the same perturbed configuration, hanging
// from two pinned corners, minimised by solvers::newton with the PD-projected Hessian
// (AssemblerOptions::hessian_projection, clamp 1e-9) and block-Jacobi PCG on the GPU
// (LinearSolver::DevicePcg, relative tolerance 1e-4 and at most 2000 iterations: an inexact
// Newton step; block Jacobi is weak on this stiff, light cloth), 8 Newton steps. Prints the
// convergence table and the seconds per part summed over the iterations: assembly (energy,
// gradient and the projected Hessian outside the line search, with their host transfers), the
// linear solve (PCG and the rhs/dx transfers) and the line search (energies). Wall clock: the
// solver's own stopwatches.
//
//   cloth_newton [N ...]   (default 100 500 1000)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "backends/assembly/assembler.h"
#include "backends/cuda/driver.h"
#include "bench/energy_bench.h"
#include "examples/mesh_energy/cloth_energy.h"
#include "solvers/newton.h"
#include "solvers/objective.h"

using namespace dualjit;

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {100, 500, 1000};
  double bw = 0;
  if (!bench::open_device(false, &bw)) return 1;
  for (int n : sizes) {
    const mesh_energy::ClothGrid grid = mesh_energy::cloth_grid(n);
    const int64_t nv = grid.mesh.n_vertices();
    const double h = 1.0 / (n - 1);
    std::vector<double> x = grid.mesh.x;
    for (int64_t v = 0; v < nv; ++v)
      for (int c = 0; c < 3; ++c) x[v * 3 + c] += 0.2 * h * std::sin(0.7 * double(v) + 1.3 * c);
    assembly::Problem p = mesh_energy::cloth_problem(grid, grid.mesh.x);
    assembly::AssemblerOptions ao;
    ao.hessian_projection = {jit::ProjectionKind::Clamp, 1e-9};
    assembly::Assembler a(p, ao);
    solvers::AssemblerObjective f(a);
    solvers::NewtonOptions o;
    o.linear_solver = solvers::LinearSolver::DevicePcg;
    o.pcg.relative_tolerance = 1e-4;
    o.pcg.max_iterations = 2000;
    o.max_iterations = 8;
    o.relative_gradient_tolerance = 1e-8;
    o.gradient_tolerance = 0;
    o.pinned = solvers::PinnedDofs(nv, 3);
    o.pinned.pin_node(0);
    o.pinned.pin_node(n - 1);
    for (int v : {0, n - 1}) {
      for (int c = 0; c < 3; ++c) x[v * 3 + c] = grid.mesh.x[v * 3 + c];
    }
    solvers::newton(f, x, o);  // warm-up: kernels compiled or loaded, structure built
    const solvers::SolveResult r = solvers::newton(f, x, o);
    double as = 0, ls = 0, ss = 0;
    int cg = 0;
    for (const auto& k : r.iterations) {
      as += k.assembly_seconds;
      ls += k.linear_solve_seconds;
      ss += k.line_search_seconds;
      cg += k.linear_iterations;
    }
    std::printf("\nn = %d: %lld vertices, %zu springs\n%s", n, (long long)nv, grid.rest.size(),
                solvers::format_log(r).c_str());
    std::printf(
        "RESULT n=%d steps=%d converged=%d seconds=%.4f assembly=%.4f (%.0f%%) linear=%.4f "
        "(%.0f%%) line_search=%.4f (%.0f%%) pcg_iterations=%d ms_per_pcg_iteration=%.4f\n",
        n, r.n_steps(), int(r.converged()), r.seconds, as, 100 * as / r.seconds, ls,
        100 * ls / r.seconds, ss, 100 * ss / r.seconds, cg, cg ? 1e3 * ls / cg : 0.0);
  }
  return 0;
}
