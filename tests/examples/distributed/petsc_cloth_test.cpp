// The cloth Newton step over MPI ranks through PETSc SNES: converged quadratically, the same
// SNES history (to the printed digits) and the same positions (to round-off) as one process on
// any number of ranks, the minimum serial Newton finds, the pins exactly kept, the projected
// Hessian and GMRES converging too, and misuse and divergence named on every rank alike.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_problem.h"
#include "examples/distributed/petsc_cloth.h"
#include "examples/mesh_energy/cloth_energy.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "solvers/newton.h"
#include "solvers/objective.h"
#include "support/assembly.h"
#include "support/mpi_problems.h"

using namespace dualjit;

namespace {

constexpr int kN = 14;  // grid side: 196 vertices, 3 x 196 DOFs

// The implicit-Euler step of the per-element AD paper's cloth benchmark (cloth_energy.h's
// defaults: k = 1e5, h = 0.01 s, 1 kg), from rest: the flat grid pinned at the two corners of
// one edge, gravity across it. Every spring starts at its rest length; in the step the cloth
// falls by about g h^2 and bends around the pins. Along Newton's path the exact Hessian stays
// positive definite (the inertia term outweighs the springs that end up compressed), so Newton
// converges quadratically to a true minimum.
struct ClothCase {
  mesh_energy::ClothGrid grid = mesh_energy::cloth_grid(kN);
  std::vector<double> x0 = grid.mesh.x;
  mesh_energy::ClothStep step;
  assembly::Problem problem = make_problem();
  solvers::PinnedDofs pinned{grid.mesh.n_vertices(), 3};
  const int32_t corners[2] = {0, kN - 1};

  ClothCase() {
    for (int32_t v : corners) pinned.pin_node(v);
  }
  assembly::Problem make_problem() const {
    return mesh_energy::cloth_problem(grid, x0, step);  // xhat = x0: from rest
  }
};

// The exact Hessian, CG with point-block Jacobi (the same on any partition) solved tightly, and
// only the gradient norm to stop: at 1e-9, where a step still lowers the energy (|E| ~ 5e-7) by
// about 1e-15, far above its round-off (~1e-21); the next step's decrease, ~1e-21, would be a
// coin toss for the line search, different on each partition.
mesh_energy::SnesMinimizeOptions exact_newton(const ClothCase& c) {
  mesh_energy::SnesMinimizeOptions o;
  o.assembler = test::on_cpu();
  o.pinned = c.pinned;
  o.gradient_tolerance = 1e-9;
  o.relative_gradient_tolerance = 0;
  o.step_tolerance = 0;
  o.linear = mesh_energy::SnesLinearSolver::cg_point_block_jacobi;
  o.linear_rtol = 1e-10;
  o.options_database = false;
  return o;
}

// What a history prints, without its seconds.
std::string printed(const mesh_energy::SnesMinimizeResult& r) {
  std::string out;
  char line[128];
  for (const mesh_energy::SnesIteration& h : r.history) {
    std::snprintf(line, sizeof line, "%d %.4e %.4e %.3f %d\n", h.iteration, h.energy,
                  h.gradient_norm, h.step, h.linear_iterations);
    out += line;
  }
  return out + r.reason;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (size_t k = 0; k < a.size(); ++k) worst = std::max(worst, std::abs(a[k] - b[k]));
  return worst;
}

bool pins_exact(const ClothCase& c, const std::vector<double>& x) {
  if (x.size() != c.x0.size()) return false;
  for (int32_t v : c.corners)
    for (int d = 0; d < 3; ++d)
      if (x[v * 3 + d] != c.x0[v * 3 + d]) return false;
  return true;
}

// The serial dualjit Newton (solvers/newton.h, sparse Cholesky as the cloth demo runs it on
// the CPU) over the same problem and pins, with the Hessian `projection`.
solvers::SolveResult serial_newton(const ClothCase& c, jit::HessianProjection projection,
                                   double gradient_tolerance) {
  assembly::Problem p = c.make_problem();
  assembly::AssemblerOptions ao = test::on_cpu();
  ao.hessian_projection = projection;
  assembly::Assembler assembler(p, ao);
  solvers::AssemblerObjective objective(assembler);
  solvers::NewtonOptions no;
  no.pinned = c.pinned;
  no.gradient_tolerance = gradient_tolerance;
  no.relative_gradient_tolerance = 0;
  no.decrement_tolerance = 0;
  no.linear_solver = solvers::LinearSolver::SparseCholesky;
  return solvers::newton(objective, c.x0, no);
}

}  // namespace

TEST_CASE(
    "cloth step through PETSc SNES: one process's history and positions on any number of "
    "ranks, and serial Newton's") {
  ClothCase c;
  const mesh_energy::SnesMinimizeOptions o = exact_newton(c);
  // Every collective first; the checks after.
  const mesh_energy::SnesMinimizeResult world =
      mesh_energy::minimize_energy_petsc(MPI_COMM_WORLD, c.problem, c.x0, o);
  const mesh_energy::SnesMinimizeResult self =
      mesh_energy::minimize_energy_petsc(MPI_COMM_SELF, c.problem, c.x0, o);
  if (test::comm_rank(MPI_COMM_WORLD) == 0) MESSAGE(mesh_energy::format_snes_history(world));

  CHECK(world.converged);
  CHECK(world.reason == "CONVERGED_FNORM_ABS");
  CHECK(printed(world) == printed(self));
  CHECK(max_difference(world.x, self.x) <= 1e-12);
  CHECK(pins_exact(c, world.x));
  const auto& h = world.history;
  REQUIRE(h.size() >= 4);
  double largest = 0;
  for (const auto& r : h) largest = std::max(largest, r.gradient_norm);
  CHECK(h.back().gradient_norm <= 1e-6 * largest);
  for (size_t k = 0; k + 1 < h.size(); ++k) CHECK(h[k + 1].energy < h[k].energy);
  // Quadratic at the end: over the last two (full) steps the order estimate
  // log(g3 / g2) / log(g2 / g1) is 2 or more (a linear rate gives 1).
  const double g1 = h[h.size() - 3].gradient_norm, g2 = h[h.size() - 2].gradient_norm,
               g3 = h.back().gradient_norm;
  CHECK(h[h.size() - 3].step == 1.0);
  CHECK(h[h.size() - 2].step == 1.0);
  CHECK(g2 < 0.1 * g1);
  CHECK(std::log(g3 / g2) / std::log(g2 / g1) >= 1.8);

  // The same method serially (the exact Hessian, to the same gradient norm) takes the same
  // Newton steps, solved exactly rather than by CG to 1e-10: the last step (~1e-4 m at most)
  // off by 1e-14, the earlier steps' errors contracted quadratically by the later ones.
  const solvers::SolveResult newton = serial_newton(c, {}, o.gradient_tolerance);
  CHECK(newton.converged());
  CHECK(newton.iterations.size() == h.size());
  CHECK(max_difference(world.x, newton.x) <= 1e-12);
  CHECK(std::abs(h.back().energy - newton.energy) <= 1e-12 * std::abs(newton.energy));
  // The cloth demo's Newton (PD-projected Hessian) run to |g| <= 1e-12 finds the same minimum.
  // SNES's point is |g| <= 1e-9 from it: about |H^-1 g| away, with the Hessian's smallest
  // eigenvalue about the vertex mass m = 1/196 (the inertia term's; the springs stiffen most
  // directions), so at most some 1e-9 / m = 2e-7 (measured: 4e-10).
  const solvers::SolveResult demo = serial_newton(c, {jit::ProjectionKind::Clamp, 1e-9}, 1e-12);
  const double m = 1.0 / double(c.grid.mesh.n_vertices());  // ClothStep's default
  CHECK(demo.converged());
  CHECK(max_difference(world.x, demo.x) <= o.gradient_tolerance / m);
}

TEST_CASE(
    "cloth step through PETSc SNES: the projected Hessian and GMRES with block ILU(0) "
    "converge too; a cap, misuse and a failed linear solve are named") {
  ClothCase c;
  const mesh_energy::SnesMinimizeOptions exact = exact_newton(c);
  const mesh_energy::SnesMinimizeResult reference =
      mesh_energy::minimize_energy_petsc(MPI_COMM_WORLD, c.problem, c.x0, exact);

  // As the cloth demo: each element's Hessian clamped positive definite. Where springs end up
  // compressed that is no longer the exact Hessian, so convergence turns linear, but to the
  // same minimum.
  mesh_energy::SnesMinimizeOptions projected = exact;
  projected.assembler.hessian_projection = {jit::ProjectionKind::Clamp, 1e-9};
  const mesh_energy::SnesMinimizeResult p =
      mesh_energy::minimize_energy_petsc(MPI_COMM_WORLD, c.problem, c.x0, projected);
  // PETSc's default solver: right for indefinite Hessians too, its iterations per partition.
  mesh_energy::SnesMinimizeOptions gmres = exact;
  gmres.linear = mesh_energy::SnesLinearSolver::gmres_block_ilu0;
  const mesh_energy::SnesMinimizeResult g =
      mesh_energy::minimize_energy_petsc(MPI_COMM_WORLD, c.problem, c.x0, gmres);
  mesh_energy::SnesMinimizeOptions capped = exact;
  capped.max_iterations = 1;
  const mesh_energy::SnesMinimizeResult one =
      mesh_energy::minimize_energy_petsc(MPI_COMM_WORLD, c.problem, c.x0, capped);

  CHECK(p.converged);
  CHECK(p.history.size() > reference.history.size());
  CHECK(pins_exact(c, p.x));
  CHECK(max_difference(p.x, reference.x) <= 2e-7);  // both |g| <= 1e-9: as above
  CHECK(g.converged);
  CHECK(g.history.size() == reference.history.size());
  CHECK(max_difference(g.x, reference.x) <= 1e-12);  // the same steps, solved to 1e-10
  CHECK_FALSE(one.converged);
  CHECK(one.reason == "DIVERGED_MAX_IT");
  CHECK(one.history.size() == 2);
  CHECK(pins_exact(c, one.x));

  // Errors, thrown on every rank alike (the inputs are the same everywhere; SNES's reason is
  // collective).
  mesh_energy::SnesMinimizeOptions starved = exact;
  starved.linear_max_iterations = 2;
  CHECK_THROWS_WITH_AS(mesh_energy::minimize_energy_petsc(MPI_COMM_WORLD, c.problem, c.x0, starved),
                       doctest::Contains("DIVERGED_LINEAR_SOLVE"), std::runtime_error);
  const std::vector<double> short_start(c.x0.begin(), c.x0.end() - 3);
  CHECK_THROWS_WITH_AS(
      mesh_energy::minimize_energy_petsc(MPI_COMM_WORLD, c.problem, short_start, exact),
      doctest::Contains("585 values for 196 nodes x 3"), std::invalid_argument);
  mesh_energy::SnesMinimizeOptions wrong_pins = exact;
  wrong_pins.pinned = solvers::PinnedDofs(10, 3);
  wrong_pins.pinned.pin_node(0);
  CHECK_THROWS_WITH_AS(
      mesh_energy::minimize_energy_petsc(MPI_COMM_WORLD, c.problem, c.x0, wrong_pins),
      doctest::Contains("pins over 30 DOFs"), std::invalid_argument);
  const cfd::EdgeMesh em = cfd::build_edge_mesh(cfd::box_tet_mesh(2, 2, 2));
  const assembly::Problem flux = cfd::roe_problem(em);
  const std::vector<double> q(em.n_nodes * 5, 1.0);
  CHECK_THROWS_WITH_AS(mesh_energy::minimize_energy_petsc(MPI_COMM_WORLD, flux, q),
                       doctest::Contains("is not an energy term"), std::invalid_argument);
}
