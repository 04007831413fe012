// The BDF's per-system step control (bdf_step_control.nvrtc.h), the one both engines run: the
// last step clipped to t_end, LU reuse within kLuReuse, a failed iteration with an old Jacobian
// refreshing it, rejections shrinking the step, the order change after q + 1 equal steps, and
// the ends (done, non-finite, step underflow, too many steps).
#include <doctest/doctest.h>

#include <cmath>

#include "solvers/bdf_coefficients.h"
#include "solvers/bdf_step_control.nvrtc.h"

using namespace dualjit::solvers;
using namespace dualjit::solvers::bdf;

namespace {

StepControl started(double h, double t_end) {
  StepControl s;
  s.h = h;
  s.t_end = t_end;
  return s;
}

StepOutcome converged(double err, int iterations = 2) {
  StepOutcome o;
  o.converged = 1;
  o.iterations = iterations;
  o.err = err;
  o.err_lower = o.err_higher = INFINITY;
  return o;
}

constexpr double kInf = INFINITY;

}  // namespace

TEST_CASE("a plan factors anew only when c leaves the LU's by more than kLuReuse") {
  StepControl s = started(1e-3, 1.0);
  const StepPlan first = plan_step(s, kInf, alpha.data());
  CHECK(first.order == 1);
  CHECK(first.c == doctest::Approx(1e-3 / alpha[1]));
  CHECK(first.wants == kWantsLu);  // no LU yet
  CHECK(s.c_lu == first.c);

  scale_step(s, 1.2);  // within 30%: the LU stays, the differences rescale
  const StepPlan kept = plan_step(s, kInf, alpha.data());
  CHECK(kept.wants == 0);
  CHECK(kept.rescale == doctest::Approx(1.2));
  CHECK(s.rescale == 1.0);

  scale_step(s, 1.25);  // 1.5 times the LU's c
  CHECK(plan_step(s, kInf, alpha.data()).wants == kWantsLu);
}

TEST_CASE("the last step ends at t_end and no step exceeds max_step") {
  StepControl s = started(0.4, 1.0);
  s.t = 0.7;
  StepPlan p = plan_step(s, kInf, alpha.data());
  CHECK(s.h == doctest::Approx(0.3));
  CHECK(p.rescale == doctest::Approx(0.75));
  CHECK(conclude_step(s, converged(0.5), 100, false));
  CHECK(s.t == 1.0);
  CHECK_FALSE(s.running);
  CHECK(s.status == kDone);

  StepControl m = started(0.4, 1.0);
  plan_step(m, 0.1, alpha.data());
  CHECK(m.h == doctest::Approx(0.1));
}

TEST_CASE("a failed iteration refreshes an old Jacobian first, then halves the step") {
  StepControl s = started(1e-3, 1.0);
  plan_step(s, kInf, alpha.data());
  REQUIRE(conclude_step(s, converged(0.5), 100, false));
  CHECK_FALSE(s.current_jacobian);  // evaluated before this step's prediction

  StepPlan p = plan_step(s, kInf, alpha.data());
  StepOutcome failed;  // converged = 0: the iteration did not converge
  CHECK_FALSE(conclude_step(s, failed, 100, false));
  CHECK(s.refresh);
  CHECK(s.h == doctest::Approx(1e-3));  // again at the same step
  p = plan_step(s, kInf, alpha.data());
  CHECK(p.wants == (kWantsJacobian | kWantsLu));
  CHECK(s.current_jacobian);

  CHECK_FALSE(conclude_step(s, failed, 100, false));  // with a fresh one: the step halves
  CHECK(s.h == doctest::Approx(5e-4));
  CHECK_FALSE(s.lu_valid);
  CHECK(s.rejected == 2);
  CHECK(s.steps == 3);
}

TEST_CASE("an error above 1 shrinks the step by the order's root, no less than kMinFactor") {
  StepControl s = started(1e-3, 1.0);
  plan_step(s, kInf, alpha.data());
  CHECK_FALSE(conclude_step(s, converged(4.0, 4), 100, false));
  const double safety = 0.9 * (2 * kNewtonIterations + 1) / (2 * kNewtonIterations + 4);
  CHECK(s.h == doctest::Approx(1e-3 * safety * std::pow(4.0, -0.5)));
  CHECK(s.t == 0.0);

  plan_step(s, kInf, alpha.data());
  const double h = s.h;
  CHECK_FALSE(conclude_step(s, converged(1e6), 100, false));
  CHECK(s.h == doctest::Approx(h * kMinFactor));
}

TEST_CASE("after q + 1 equal steps the order with the longest next step is taken") {
  StepControl s = started(1e-3, 1.0);
  plan_step(s, kInf, alpha.data());
  StepOutcome o = converged(0.01);
  o.err_higher = 1e-4;  // order 2 would allow a longer step than order 1
  REQUIRE(conclude_step(s, o, 100, false));
  CHECK(s.q == 1);  // one equal step so far
  CHECK(s.equal_steps == 1);
  plan_step(s, kInf, alpha.data());
  REQUIRE(conclude_step(s, o, 100, false));
  CHECK(s.q == 2);
  const double safety = 0.9 * (2 * kNewtonIterations + 1) / (2 * kNewtonIterations + 2);
  CHECK(s.h == doctest::Approx(1e-3 * std::min(kMaxFactor, safety * std::pow(1e-4, -1.0 / 3))));
  CHECK(s.equal_steps == 0);
  CHECK(s.t == doctest::Approx(2e-3));
}

TEST_CASE("a system ends at its failures, each with its status") {
  StepControl s = started(1e-3, 1.0);
  StepOutcome bad;
  bad.converged = 2;  // f or a correction not finite
  for (int k = 0; k < kMaxNonFinite - 1; ++k) {
    plan_step(s, kInf, alpha.data());
    CHECK_FALSE(conclude_step(s, bad, 100, false));
    CHECK(s.running);
  }
  CHECK(s.h == doctest::Approx(1e-3 * std::pow(kMinFactor, kMaxNonFinite - 1)));
  CHECK_FALSE(conclude_step(s, bad, 100, false));
  CHECK(s.status == kNonFinite);

  StepControl u = started(1e-300, 1.0);
  u.t = 0.5;
  CHECK_FALSE(conclude_step(u, StepOutcome{}, 100, false));
  CHECK(u.status == kStepUnderflow);

  StepControl m = started(1e-3, 1.0);
  for (int k = 0; k < 3; ++k) conclude_step(m, converged(0.5), 3, false);
  CHECK_FALSE(m.running);
  CHECK(m.status == kTooManySteps);
  CHECK(m.steps == 3);
}

TEST_CASE("accepted steps sample the peak") {
  StepControl s = started(0.1, 1.0);
  for (double f : {1.0, 3.0, 4.0, 3.0, 1.0}) {
    StepOutcome o = converged(0.5);
    o.peak = f;
    plan_step(s, 0.1, alpha.data());  // every step 0.1 (the order changes would lengthen it)
    REQUIRE(conclude_step(s, o, 100, true));
  }
  // Samples at t = 0.1 .. 0.5; the parabola through (0.2, 3), (0.3, 4), (0.4, 3) peaks at 0.3.
  const auto [t, value] = s.peak.peak();
  CHECK(t == doctest::Approx(0.3));
  CHECK(value == doctest::Approx(4.0));
}
