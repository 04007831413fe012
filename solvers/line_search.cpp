#include "solvers/line_search.h"

#include <cmath>

#include "solvers/solver_error.h"

namespace dualjit::solvers {

namespace {

void check_options(const LineSearchOptions& o, double initial_step) {
  if (!(o.c1 > 0 && o.c1 < 1) || !(o.shrink > 0 && o.shrink < 1) || o.max_tries < 1 ||
      !(o.max_step_fraction > 0 && o.max_step_fraction <= 1) || !(initial_step > 0)) {
    throw SolverError("armijo_line_search: invalid options (c1 " + std::to_string(o.c1) +
                      ", shrink " + std::to_string(o.shrink) + ", max_tries " +
                      std::to_string(o.max_tries) + ", max_step_fraction " +
                      std::to_string(o.max_step_fraction) + ", initial step " +
                      std::to_string(initial_step) + ")");
  }
}

}  // namespace

LineSearchResult armijo_line_search(const VectorSpace& space, const EnergyFunction& energy,
                                    const Vector& x, double energy_x, const Vector& gradient,
                                    const Vector& dx, double initial_step,
                                    const LineSearchOptions& o, Vector& trial,
                                    std::optional<double> slope) {
  check_options(o, initial_step);
  if (gradient.size() != x.size() || dx.size() != x.size() || trial.size() != x.size()) {
    throw SolverError("armijo_line_search: x has " + std::to_string(x.size()) +
                      " values, gradient " + std::to_string(gradient.size()) + ", direction " +
                      std::to_string(dx.size()) + ", trial " + std::to_string(trial.size()));
  }
  LineSearchResult r;
  r.energy = energy_x;
  r.slope = slope ? *slope : space.dot(gradient, dx);
  if (!std::isfinite(energy_x)) {
    r.failure = "the energy at the start point is not finite";
    return r;
  }
  if (!(r.slope < 0)) {
    r.failure = "not a descent direction (g.dx = " + std::to_string(r.slope) + ")";
    return r;
  }
  double alpha = initial_step;
  if (o.max_step) {
    r.max_step = o.max_step(x, dx);
    if (!(r.max_step > 0)) {
      r.failure = "the max-step rule admits no step (" + std::to_string(r.max_step) + ")";
      return r;
    }
    alpha = std::min(alpha, o.max_step_fraction * r.max_step);
  }
  for (int t = 0; t < o.max_tries; ++t, alpha *= o.shrink) {
    space.add_scaled(x, alpha, dx, trial);
    const double e = energy(trial);
    ++r.evaluations;
    // NaN fails this comparison too.
    if (std::isfinite(e) && e <= energy_x + o.c1 * alpha * r.slope) {
      r.accepted = true;
      r.alpha = alpha;
      r.energy = e;
      return r;
    }
  }
  r.failure = "no sufficient decrease in " + std::to_string(o.max_tries) + " trials (last step " +
              std::to_string(alpha / o.shrink) + ")";
  return r;
}

}  // namespace dualjit::solvers
