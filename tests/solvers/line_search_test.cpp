// The Armijo backtracking line search on closed-form energies: the accepted step satisfies the
// sufficient-decrease condition and is the first that does, the max-step rule caps the first
// trial at 0.9 of its bound, non-finite energies count as failed trials, a slope the caller
// knows replaces the dot; and a max-step rule passed to Newton on the cloth bounds every step.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "solvers/line_search.h"
#include "solvers/newton.h"
#include "solvers/solver_error.h"
#include "solvers/solver_problems.h"
#include "solvers/vector_ops.h"
#include "solvers/vector_space.h"

using namespace dualjit;
using namespace dualjit::solvers;

namespace {

// E(x) = sum_i w_i (x_i - c_i)^4 + (x_i - c_i)^2: convex, not quadratic.
const std::vector<double> kW = {1.0, 3.0, 0.5}, kC = {0.3, -1.2, 2.0};

double quartic(std::span<const double> x) {
  double e = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = x[i] - kC[i];
    e += kW[i] * d * d * d * d + d * d;
  }
  return e;
}

std::vector<double> quartic_gradient(std::span<const double> x) {
  std::vector<double> g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = x[i] - kC[i];
    g[i] = 4 * kW[i] * d * d * d + 2 * d;
  }
  return g;
}

using HostEnergy = std::function<double(std::span<const double>)>;

// The search over host vectors, from a first trial of 1; the trial point it ends at in *trial.
LineSearchResult search(const HostEnergy& e, const std::vector<double>& x, double ex,
                        const std::vector<double>& g, const std::vector<double>& dx,
                        const LineSearchOptions& o, std::vector<double>* trial = nullptr) {
  const VectorSpace& h = host_space();
  Vector t = h.zeros(int64_t(x.size()));
  const LineSearchResult r = armijo_line_search(
      h, [&](const Vector& v) { return e(v.host()); }, h.from_host(x), ex, h.from_host(g),
      h.from_host(dx), 1.0, o, t);
  if (trial) *trial = h.to_host(t);
  return r;
}

}  // namespace

TEST_CASE("armijo: the accepted step satisfies sufficient decrease and is the first that does") {
  const std::vector<double> x = {2.0, 1.0, -1.0};
  const std::vector<double> g = quartic_gradient(x);
  std::vector<double> dx = g;
  for (double& v : dx) v = -v;  // a long steepest-descent step: alpha = 1 overshoots
  LineSearchOptions o;
  o.c1 = 0.3;
  const double e0 = quartic(x);
  std::vector<double> at;
  const LineSearchResult r = search(quartic, x, e0, g, dx, o, &at);
  REQUIRE(r.accepted);
  CHECK(r.alpha < 1);
  CHECK(r.evaluations > 1);
  CHECK(r.alpha == std::pow(o.shrink, r.evaluations - 1));
  CHECK(r.slope == doctest::Approx(dot(g, dx)));
  CHECK(r.energy == quartic(at));
  CHECK(r.energy <= e0 + o.c1 * r.alpha * r.slope);
  // The step before it (alpha / shrink) violated the condition.
  const double prev = r.alpha / o.shrink;
  std::vector<double> before = x;
  for (size_t i = 0; i < x.size(); ++i) before[i] += prev * dx[i];
  CHECK(quartic(before) > e0 + o.c1 * prev * r.slope);
  for (size_t i = 0; i < x.size(); ++i) CHECK(at[i] == x[i] + r.alpha * dx[i]);
}

TEST_CASE(
    "armijo: a slope the caller knows replaces the dot, and decides the sufficient decrease") {
  const std::vector<double> x = {0.2, -1.0, 1.9};
  const std::vector<double> g = quartic_gradient(x);
  std::vector<double> dx = g;
  for (double& v : dx) v = -v;
  double gdx = 0;
  for (size_t i = 0; i < g.size(); ++i) gdx += g[i] * dx[i];
  const VectorSpace& h = host_space();
  const auto run = [&](std::optional<double> slope) {
    Vector t = h.zeros(3);
    return armijo_line_search(
        h, [&](const Vector& v) { return quartic(v.host()); }, h.from_host(x), quartic(x),
        h.from_host(g), h.from_host(dx), 1.0, LineSearchOptions{}, t, slope);
  };
  const LineSearchResult dot = run(std::nullopt), known = run(gdx);
  CHECK(dot.slope == doctest::Approx(gdx).epsilon(1e-15));
  CHECK(known.slope == gdx);
  CHECK(known.alpha == dot.alpha);
  // A slope far steeper than the true one asks for more decrease than short steps give.
  const LineSearchResult steep = run(1e6 * gdx);
  CHECK(steep.slope == 1e6 * gdx);
  CHECK(!steep.accepted);
  // A slope that is not negative is not a descent direction, whatever dx is.
  const LineSearchResult up = run(1.0);
  CHECK(!up.accepted);
  CHECK(up.failure.find("not a descent direction") != std::string::npos);
}

TEST_CASE("armijo: the max-step rule caps the first trial at 0.9 of its bound") {
  const std::vector<double> x = {0.2, -1.0, 1.9};
  const std::vector<double> g = quartic_gradient(x);
  std::vector<double> dx = g;
  for (double& v : dx) v = -0.01 * v;  // short: alpha = 1 would be accepted
  LineSearchOptions o;
  int calls = 0;
  o.max_step = [&](const Vector& xs, const Vector& d) {
    ++calls;
    CHECK(xs.host()[1] == x[1]);
    CHECK(d.host()[2] == dx[2]);
    return 0.4;
  };
  const LineSearchResult r = search(quartic, x, quartic(x), g, dx, o);
  CHECK(calls == 1);
  REQUIRE(r.accepted);
  CHECK(r.max_step == 0.4);
  CHECK(r.alpha == doctest::Approx(0.9 * 0.4).epsilon(1e-15));
  CHECK(r.evaluations == 1);
  // A bound above the initial step leaves it alone.
  o.max_step = [](const Vector&, const Vector&) { return 5.0; };
  CHECK(search(quartic, x, quartic(x), g, dx, o).alpha == 1.0);
  // A bound of zero admits nothing.
  o.max_step = [](const Vector&, const Vector&) { return 0.0; };
  const LineSearchResult none = search(quartic, x, quartic(x), g, dx, o);
  CHECK(!none.accepted);
  CHECK(none.evaluations == 0);
  CHECK(none.failure.find("max-step rule admits no step") != std::string::npos);
}

TEST_CASE("armijo: non-finite energies are failed trials; failures are results, misuse throws") {
  const std::vector<double> x = {0.2, -1.0, 1.9};
  const std::vector<double> g = quartic_gradient(x);
  std::vector<double> dx = g;
  for (double& v : dx) v = -0.01 * v;
  // Beyond 0.3 of the step the energy is +inf, beyond 0.75 NaN: as past an inverted element.
  int evaluations = 0;
  const HostEnergy walled = [&](std::span<const double> y) {
    ++evaluations;
    const double t = (y[0] - x[0]) / dx[0];
    if (t > 0.75) return std::numeric_limits<double>::quiet_NaN();
    if (t > 0.3) return std::numeric_limits<double>::infinity();
    return quartic(y);
  };
  const LineSearchResult r = search(walled, x, quartic(x), g, dx, {});
  REQUIRE(r.accepted);
  CHECK(r.alpha == 0.25);
  CHECK(r.evaluations == 3);
  CHECK(std::isfinite(r.energy));

  const HostEnergy nan = [](std::span<const double>) { return std::nan(""); };
  LineSearchOptions few;
  few.max_tries = 5;
  const LineSearchResult failed = search(nan, x, quartic(x), g, dx, few);
  CHECK(!failed.accepted);
  CHECK(failed.alpha == 0);
  CHECK(failed.evaluations == 5);
  CHECK(failed.failure.find("no sufficient decrease in 5 trials") != std::string::npos);

  std::vector<double> up = dx;
  for (double& v : up) v = -v;
  const LineSearchResult ascent = search(quartic, x, quartic(x), g, up, {});
  CHECK(!ascent.accepted);
  CHECK(ascent.failure.find("not a descent direction") != std::string::npos);

  LineSearchOptions bad;
  bad.shrink = 1.5;
  CHECK_THROWS_WITH_AS(search(quartic, x, quartic(x), g, dx, bad),
                       doctest::Contains("armijo_line_search: invalid options"), SolverError);
  CHECK_THROWS_AS(search(quartic, x, quartic(x), g, {dx[0], dx[1]}, {}), SolverError);
}

TEST_CASE("armijo: a max-step rule given to Newton bounds every step on the cloth") {
  test::SolverProblem s = test::cloth(5, 0.03, 8);
  NewtonOptions o;
  o.pinned = s.pinned;
  // No coordinate may move more than 0.01 in one step (a stand-in for a flip-free bound).
  const double limit = 0.01;
  std::vector<std::vector<double>> iterates;
  o.line_search.max_step = [&](const Vector& x, const Vector& dx) {
    iterates.emplace_back(x.host().begin(), x.host().end());
    double m = 0;
    for (double v : dx.host()) m = std::max(m, std::abs(v));
    return limit / m;
  };
  const SolveResult r = newton(*s.objective, s.start, o);
  INFO(format_log(r));
  CHECK(r.converged());
  REQUIRE(int(iterates.size()) == r.n_steps());
  iterates.push_back(r.x);
  int capped = 0;
  for (size_t k = 0; k + 1 < iterates.size(); ++k) {
    double m = 0;
    for (size_t i = 0; i < r.x.size(); ++i) {
      m = std::max(m, std::abs(iterates[k + 1][i] - iterates[k][i]));
    }
    CHECK(m <= 0.9 * limit * (1 + 1e-12));
    capped += r.iterations[k].step < 1;
  }
  // The bound was active (full Newton steps would have moved farther) and Newton still
  // finished with full steps.
  CHECK(capped >= 2);
  CHECK(r.iterations[r.iterations.size() - 2].step == 1);
}
