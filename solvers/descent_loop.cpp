#include "solvers/descent_loop.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "solvers/line_search.h"
#include "solvers/solver_error.h"
#include "solvers/stopwatch.h"

namespace dualjit::solvers {

namespace {

// The pinned DOFs as a 0/1 mask in the objective's space (none when nothing is pinned).
class FreeMask {
 public:
  FreeMask(const VectorSpace& space, const PinnedDofs& pinned, int64_t n) : space_(space) {
    if (pinned.empty()) return;
    std::vector<double> m(n);
    for (int64_t i = 0; i < n; ++i) m[i] = pinned.is_pinned(i) ? 0.0 : 1.0;
    mask_ = space.from_host(m);
  }
  void zero_pinned(Vector& v) const {
    if (mask_) space_.apply_mask(*mask_, v);
  }
  const Vector* mask() const { return mask_ ? &*mask_ : nullptr; }

 private:
  const VectorSpace& space_;
  std::optional<Vector> mask_;
};

// The gradient at x with the pinned entries zeroed, into g; throws naming the first non-finite
// DOF (the host sees only |g|^2 unless that is not finite).
double free_gradient(Objective& f, const Vector& x, Vector& g, const FreeMask& free,
                     const std::string& solver, int k) {
  f.gradient(x, g);
  free.zero_pinned(g);
  const double g2 = f.space().dot(g, g);
  if (!std::isfinite(g2)) {
    const std::vector<double> h = f.space().to_host(g);
    for (size_t i = 0; i < h.size(); ++i) {
      if (!std::isfinite(h[i])) {
        throw SolverError(solver + ": iteration " + std::to_string(k) +
                          ": the gradient is not finite at DOF " + std::to_string(i));
      }
    }
    throw SolverError(solver + ": iteration " + std::to_string(k) +
                      ": the gradient's norm overflows");
  }
  return std::sqrt(g2);
}

}  // namespace

SolveResult descent_loop(const std::string& solver, Objective& f, std::span<const double> x0,
                         const SolverOptions& o, const DirectionRule& direction) {
  const Stopwatch total;
  const int64_t n = f.n_dofs();
  if (static_cast<int64_t>(x0.size()) != n) {
    throw SolverError(solver + ": the start point has " + std::to_string(x0.size()) +
                      " values, the objective " + std::to_string(n) + " DOFs");
  }
  o.pinned.check_size(n, solver.c_str());
  const VectorSpace& space = f.space();
  const FreeMask free(space, o.pinned, n);
  const EnergyFunction energy = [&f](const Vector& x) { return f.energy(x); };

  SolveResult res;
  res.solver = solver;
  // The loop's vectors, made once: the iterate, its gradient, the direction and the line
  // search's trial point (which becomes the iterate when accepted).
  Vector x = space.from_host(x0);
  Vector g = space.zeros(n), dx = space.zeros(n), trial = space.zeros(n);
  double first_assembly = 0;
  {
    const Stopwatch t;
    res.energy = f.energy(x);
    first_assembly = t.seconds();
  }
  if (!std::isfinite(res.energy)) {
    throw SolverError(solver + ": the energy at the start point is not finite (" +
                      std::to_string(res.energy) + ")");
  }
  const Stopwatch tg;
  res.gradient_norm = free_gradient(f, x, g, free, solver, 0);
  first_assembly += tg.seconds();
  const double g0 = res.gradient_norm;
  double previous_step = 0;

  for (int k = 0;; ++k) {
    const Stopwatch iteration;
    IterationRecord rec;
    rec.iteration = k;
    rec.energy = res.energy;
    rec.gradient_norm = res.gradient_norm;
    if (k == 0) rec.assembly_seconds = rec.seconds = first_assembly;
    const auto stop = [&](StopReason reason) {
      res.reason = reason;
      rec.seconds += iteration.seconds();
      res.iterations.push_back(rec);
    };
    if (res.gradient_norm <= o.gradient_tolerance) {
      stop(StopReason::GradientNorm);
      break;
    }
    if (k > 0 && res.gradient_norm <= o.relative_gradient_tolerance * g0) {
      stop(StopReason::RelativeGradientNorm);
      break;
    }
    if (k >= o.max_iterations) {
      stop(StopReason::MaxIterations);
      break;
    }
    Iterate it{space, k, x, res.energy, g, free.mask(), res.gradient_norm, previous_step, false};
    LineSearchResult ls;
    bool decrement_met = false;
    for (;;) {
      const Direction d = direction(it, dx);
      free.zero_pinned(dx);
      rec.assembly_seconds += d.assembly_seconds;
      rec.linear_solve_seconds += d.linear_solve_seconds;
      rec.linear_iterations += d.linear_iterations;
      rec.shift = d.shift;
      rec.gradient_fallback = d.fallback;
      if (d.newton_step) {
        rec.newton_decrement = -(d.slope ? *d.slope : space.dot(g, dx)) / 2;
        if (rec.newton_decrement >= 0 && rec.newton_decrement <= o.decrement_tolerance) {
          decrement_met = true;
          break;
        }
      }
      const Stopwatch search;
      ls = armijo_line_search(space, energy, x, res.energy, g, dx, d.initial_step, o.line_search,
                              trial, d.slope);
      rec.line_search_seconds += search.seconds();
      rec.line_search_evaluations += ls.evaluations;
      if (ls.accepted || !d.retry_on_failure || it.retry) break;
      it.retry = true;
    }
    if (decrement_met) {
      stop(StopReason::NewtonDecrement);
      break;
    }
    if (!ls.accepted) {
      res.message = solver + ": iteration " + std::to_string(k) + ": " + ls.failure;
      stop(StopReason::LineSearchFailed);
      break;
    }
    rec.step = ls.alpha;
    previous_step = ls.alpha;
    std::swap(x, trial);
    res.energy = ls.energy;
    const Stopwatch ta;
    res.gradient_norm = free_gradient(f, x, g, free, solver, k + 1);
    rec.assembly_seconds += ta.seconds();
    rec.seconds += iteration.seconds();
    res.iterations.push_back(rec);
  }
  res.x = space.to_host(x);
  res.seconds = total.seconds();
  return res;
}

}  // namespace dualjit::solvers
