// Newton's method on the cloth step and on a Neo-Hookean box (CPU backend): monotone energy
// decrease, quadratic convergence near the minimum, pinned DOFs exactly where they started,
// both linear solvers reaching the same point, the shift that rescues an indefinite start, the
// convergence table, and misuse named.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "solvers/newton.h"
#include "solvers/solver_error.h"
#include "solvers/solver_problems.h"
#include "solvers/vector_ops.h"

using namespace dualjit;
using namespace dualjit::solvers;

namespace {

// |g_{k+1}| / |g_k|^2 over the full steps that start in the region of local convergence
// (|g_k| < local) and end above the round-off floor. Newton with an exact Hessian keeps these
// bounded; a linear rate rho would make them rho / |g_k|, growing without bound.
std::vector<double> quadratic_ratios(const SolveResult& r, double local, double floor) {
  std::vector<double> out;
  for (size_t k = 0; k + 1 < r.iterations.size(); ++k) {
    const IterationRecord &a = r.iterations[k], &b = r.iterations[k + 1];
    if (a.step == 1 && a.gradient_norm < local && b.gradient_norm > floor) {
      out.push_back(b.gradient_norm / (a.gradient_norm * a.gradient_norm));
    }
  }
  return out;
}

void check_monotone(const SolveResult& r) {
  for (size_t k = 0; k + 1 < r.iterations.size(); ++k) {
    CHECK(r.iterations[k + 1].energy < r.iterations[k].energy);
  }
  CHECK(r.energy == r.iterations.back().energy);
}

void check_pinned_kept(const test::SolverProblem& s, const SolveResult& r) {
  int64_t moved = 0;
  for (size_t i = 0; i < r.x.size(); ++i) {
    if (s.pinned.is_pinned(static_cast<int64_t>(i))) {
      CHECK(r.x[i] == s.start[i]);
    } else {
      moved += r.x[i] != s.start[i];
    }
  }
  CHECK(moved > 0);
}

// The free gradient at the solution is small while the pinned DOFs carry reaction forces.
void check_minimum(test::SolverProblem& s, const SolveResult& r, double tol) {
  const std::vector<double> g = s.assembler->gradient(r.x);
  double free_max = 0, pinned_max = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    double& m = s.pinned.is_pinned(static_cast<int64_t>(i)) ? pinned_max : free_max;
    m = std::max(m, std::abs(g[i]));
  }
  CHECK(free_max <= tol);
  CHECK(pinned_max > 1e3 * tol);
}

}  // namespace

TEST_CASE("newton: cloth from a perturbed start, Cholesky and block PCG, quadratic convergence") {
  test::SolverProblem s = test::cloth(6, 0.03, 1);
  NewtonOptions o;
  o.pinned = s.pinned;
  o.gradient_tolerance = 1e-12;
  o.relative_gradient_tolerance = 0;
  o.decrement_tolerance = 0;
  const SolveResult chol = newton(*s.objective, s.start, o);
  o.linear_solver = LinearSolver::BlockPcg;
  const SolveResult pcg = newton(*s.objective, s.start, o);
  for (const SolveResult* r : {&chol, &pcg}) {
    INFO(format_log(*r));
    CHECK(r->reason == StopReason::GradientNorm);
    CHECK(r->n_steps() >= 5);
    check_monotone(*r);
    check_pinned_kept(s, *r);
    check_minimum(s, *r, 1e-11);
    const std::vector<double> ratios = quadratic_ratios(*r, 1e-3, 1e-12);
    CHECK(ratios.size() >= 2);
    for (double c : ratios) CHECK(c < 1e3);
    // The last full step reached the floor from |g| <= 1e-5: under a linear rate it could not.
    CHECK(std::any_of(r->iterations.begin(), r->iterations.end(),
                      [](const IterationRecord& k) { return k.gradient_norm < 1e-6; }));
  }
  CHECK(pcg.iterations.front().linear_iterations > 1);
  CHECK(chol.iterations.front().linear_iterations == 0);
  for (size_t i = 0; i < chol.x.size(); ++i)
    CHECK(pcg.x[i] == doctest::Approx(chol.x[i]).epsilon(1e-9));
  // Hanging from its corners, the middle of the cloth sags below them.
  const int mid = 3 * 6 + 3;
  CHECK(chol.x[mid * 3 + 1] < -1e-3);
}

TEST_CASE("newton: stable Neo-Hookean box under gravity, bottom pinned, quadratic convergence") {
  test::SolverProblem s = test::neo_hookean_box(2, 100, 2);
  NewtonOptions o;
  o.pinned = s.pinned;
  o.gradient_tolerance = 1e-9;
  o.relative_gradient_tolerance = 0;
  o.decrement_tolerance = 0;
  const SolveResult r = newton(*s.objective, s.start, o);
  INFO(format_log(r));
  CHECK(r.converged());
  check_monotone(r);
  check_pinned_kept(s, r);
  check_minimum(s, r, 1e-8);
  const std::vector<double> ratios = quadratic_ratios(r, 10, 1e-9);
  CHECK(ratios.size() >= 2);
  for (double c : ratios) CHECK(c < 1e-2);
  // The stretched start relaxes and gravity compresses the box: the top ends below z = 1.
  for (size_t v = 0; v < r.x.size() / 3; ++v) {
    if (s.rest[v * 3 + 2] == 1.0) CHECK(r.x[v * 3 + 2] < 1.0);
  }
}

TEST_CASE("newton: an indefinite start is shifted until the direction descends, then converges") {
  test::SolverProblem s = test::cloth(6, 0.0, 4);
  // Every spring compressed to 70%: the Hessian is indefinite.
  const std::vector<double> x0 = test::scaled_cloth(s, 0.7);
  NewtonOptions o;
  o.pinned = s.pinned;
  o.decrement_tolerance = 1e-16;
  for (LinearSolver solver : {LinearSolver::SparseCholesky, LinearSolver::BlockPcg}) {
    o.linear_solver = solver;
    const SolveResult r = newton(*s.objective, x0, o);
    INFO(format_log(r));
    CHECK(r.converged());
    CHECK(r.iterations.front().shift > 0);
    CHECK(r.iterations.back().shift == 0);  // exact Newton at the end
    check_monotone(r);
    CHECK(r.gradient_norm < 1e-6);
  }
}

TEST_CASE("newton: the convergence table and a decrement stop") {
  test::SolverProblem s = test::cloth(4, 0.02, 5);
  NewtonOptions o;
  o.pinned = s.pinned;
  o.gradient_tolerance = 0;
  o.relative_gradient_tolerance = 0;
  o.decrement_tolerance = 1e-12;
  const SolveResult r = newton(*s.objective, s.start, o);
  CHECK(r.reason == StopReason::NewtonDecrement);
  const IterationRecord& last = r.iterations.back();
  CHECK(last.step == 0);
  CHECK(last.newton_decrement <= 1e-12);
  CHECK(r.iterations[r.iterations.size() - 2].newton_decrement > 1e-12);
  for (const IterationRecord& k : r.iterations) {
    CHECK(k.seconds >= k.assembly_seconds + k.linear_solve_seconds + k.line_search_seconds - 1e-6);
  }
  CHECK(r.iterations.front().assembly_seconds > 0);
  const std::string table = format_log(r);
  CHECK(table.find("energy") != std::string::npos);
  CHECK(table.find("newton: Newton decrement after " + std::to_string(r.n_steps()) + " steps") !=
        std::string::npos);
  // One line per record, the header and the summary.
  CHECK(std::count(table.begin(), table.end(), '\n') == int(r.iterations.size()) + 2);
}

TEST_CASE("newton: misuse is named") {
  test::SolverProblem s = test::cloth(4, 0.02, 6);
  NewtonOptions o;
  const std::vector<double> short_x(s.start.begin(), s.start.end() - 3);
  CHECK_THROWS_WITH_AS(newton(*s.objective, short_x, o),
                       doctest::Contains("newton: the start point has 45 values"), SolverError);
  o.pinned = PinnedDofs(5, 3);
  o.pinned.pin_node(0);
  CHECK_THROWS_WITH_AS(newton(*s.objective, s.start, o),
                       doctest::Contains("newton: pinned DOFs describe 15 DOFs"), SolverError);
  std::vector<double> bad = s.start;
  bad[7] = NAN;
  CHECK_THROWS_WITH_AS(newton(*s.objective, bad, NewtonOptions{}), doctest::Contains("not finite"),
                       SolverError);
}
