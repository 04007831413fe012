// Newton-CG, L-BFGS and gradient descent on a small cloth (CPU backend): each decreases the
// energy monotonically, keeps the pinned corners exactly, and reaches the minimum Newton finds.
// On a GPU the same solvers iterate on the objective's device vectors and reach it too.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "solvers/gradient_descent.h"
#include "solvers/lbfgs.h"
#include "solvers/newton.h"
#include "solvers/newton_cg.h"
#include "solvers/solver_error.h"
#include "solvers/solver_problems.h"
#include "support/gpu.h"

using namespace dualjit;
using namespace dualjit::solvers;

namespace {

template <class Options>
Options stopping_at(const PinnedDofs& pinned, double gradient_tolerance) {
  Options o;
  o.pinned = pinned;
  o.gradient_tolerance = gradient_tolerance;
  o.relative_gradient_tolerance = 0;
  o.decrement_tolerance = 0;
  o.max_iterations = 20000;
  return o;
}

// strict: every step lowers the energy. Otherwise steps may keep it where its evaluation
// rounds to the same value (a GPU's sums, thousands of steps near the minimum).
void check_run(const test::SolverProblem& s, const SolveResult& r, const SolveResult& newton_r,
               bool strict = true) {
  INFO(r.solver, ": ", stop_reason_name(r.reason), " after ", r.n_steps(), " steps ", r.message);
  CHECK(r.reason == StopReason::GradientNorm);
  for (size_t k = 0; k + 1 < r.iterations.size(); ++k) {
    if (strict) {
      CHECK(r.iterations[k + 1].energy < r.iterations[k].energy);
    } else {
      CHECK(r.iterations[k + 1].energy <= r.iterations[k].energy);
    }
    CHECK(r.iterations[k].step > 0);
  }
  double dx = 0;
  for (size_t i = 0; i < r.x.size(); ++i) {
    if (s.pinned.is_pinned(static_cast<int64_t>(i))) CHECK(r.x[i] == s.start[i]);
    dx = std::max(dx, std::abs(r.x[i] - newton_r.x[i]));
  }
  // The minimum sags by about 0.02; |g| <= 1e-9 with the smallest curvature (the mass, 0.04)
  // puts x within about 3e-8 of it.
  CHECK(dx < 1e-6);
  CHECK(r.energy == doctest::Approx(newton_r.energy).epsilon(1e-10));
}

}  // namespace

TEST_CASE("newton-cg, l-bfgs and gradient descent reach Newton's minimum of the cloth") {
  test::SolverProblem s = test::cloth(5, 0.03, 3);
  const SolveResult ref =
      newton(*s.objective, s.start, stopping_at<NewtonOptions>(s.pinned, 1e-12));
  REQUIRE(ref.converged());
  // The start is far from the minimum (not a trivial run).
  CHECK(ref.iterations.front().energy - ref.energy > 1e-2);

  const SolveResult cg =
      newton_cg(*s.objective, s.start, stopping_at<NewtonCgOptions>(s.pinned, 1e-9));
  check_run(s, cg, ref);
  CHECK(std::all_of(cg.iterations.begin(), cg.iterations.end() - 1,
                    [](const IterationRecord& k) { return k.linear_iterations > 0; }));
  // Forcing term min(0.5, sqrt|g|): superlinear, a Newton-like count of steps.
  CHECK(cg.n_steps() < 30);

  const SolveResult lb = lbfgs(*s.objective, s.start, stopping_at<LbfgsOptions>(s.pinned, 1e-9));
  check_run(s, lb, ref);

  const SolveResult gd =
      gradient_descent(*s.objective, s.start, stopping_at<GradientDescentOptions>(s.pinned, 1e-9));
  check_run(s, gd, ref);
  // Curvature pairs pay: L-BFGS needs far fewer steps than gradient descent.
  CHECK(lb.n_steps() * 5 < gd.n_steps());
}

TEST_CASE("l-bfgs: memory and the iteration cap") {
  test::SolverProblem s = test::cloth(4, 0.03, 7);
  LbfgsOptions o = stopping_at<LbfgsOptions>(s.pinned, 1e-9);
  o.memory = 0;
  CHECK_THROWS_WITH_AS(lbfgs(*s.objective, s.start, o), doctest::Contains("lbfgs: memory 0"),
                       SolverError);
  o.memory = 3;
  o.max_iterations = 4;
  const SolveResult r = lbfgs(*s.objective, s.start, o);
  CHECK(r.reason == StopReason::MaxIterations);
  CHECK(r.n_steps() == 4);
  CHECK(r.iterations.size() == 5);
  CHECK(!r.converged());
}

TEST_SUITE("gpu") {
  TEST_CASE(
      "on the GPU: newton-cg, l-bfgs and gradient descent on device vectors reach the "
      "CPU's minimum" *
      test::needs_gpu()) {
    test::SolverProblem s = test::cloth(6, 0.03, 5);
    const SolveResult ref =
        newton(*s.objective, s.start, stopping_at<NewtonOptions>(s.pinned, 1e-12));
    REQUIRE(ref.converged());
    assembly::Assembler gpu_a(*s.problem);  // the GPU (Auto)
    AssemblerObjective gpu_f(gpu_a);
    REQUIRE(gpu_f.space().on_device());

    const SolveResult cg = newton_cg(gpu_f, s.start, stopping_at<NewtonCgOptions>(s.pinned, 1e-9));
    check_run(s, cg, ref);
    CHECK(cg.n_steps() < 30);
    // The same iteration as on the CPU, up to the sums' rounding: as many Newton-CG steps
    // within one.
    const SolveResult cpu_cg =
        newton_cg(*s.objective, s.start, stopping_at<NewtonCgOptions>(s.pinned, 1e-9));
    CHECK(std::abs(cg.n_steps() - cpu_cg.n_steps()) <= 1);
    CHECK(cg.iterations[1].energy == doctest::Approx(cpu_cg.iterations[1].energy).epsilon(1e-12));

    const SolveResult lb = lbfgs(gpu_f, s.start, stopping_at<LbfgsOptions>(s.pinned, 1e-9));
    check_run(s, lb, ref);
    const SolveResult gd =
        gradient_descent(gpu_f, s.start, stopping_at<GradientDescentOptions>(s.pinned, 1e-9));
    check_run(s, gd, ref, false);
    CHECK(lb.n_steps() * 5 < gd.n_steps());
  }
}
