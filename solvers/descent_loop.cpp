#include "solvers/descent_loop.h"

#include <cmath>
#include <string>

#include "solvers/line_search.h"
#include "solvers/solver_error.h"
#include "solvers/stopwatch.h"
#include "solvers/vector_ops.h"

namespace dualjit::solvers {

namespace {

// The gradient at x with the pinned entries zeroed; throws when it is not finite.
std::vector<double> free_gradient(Objective& f, std::span<const double> x, const PinnedDofs& pinned,
                                  const std::string& solver, int k) {
  std::vector<double> g = f.gradient(x);
  if (static_cast<int64_t>(g.size()) != f.n_dofs()) {
    throw SolverError(solver + ": the gradient has " + std::to_string(g.size()) +
                      " values, expected " + std::to_string(f.n_dofs()));
  }
  pinned.zero(g);
  for (size_t i = 0; i < g.size(); ++i) {
    if (!std::isfinite(g[i])) {
      throw SolverError(solver + ": iteration " + std::to_string(k) +
                        ": the gradient is not finite at DOF " + std::to_string(i));
    }
  }
  return g;
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
  const EnergyFunction energy = [&f](std::span<const double> x) { return f.energy(x); };

  SolveResult res;
  res.solver = solver;
  res.x.assign(x0.begin(), x0.end());
  double first_assembly = 0;
  {
    const Stopwatch t;
    res.energy = f.energy(res.x);
    first_assembly = t.seconds();
  }
  if (!std::isfinite(res.energy)) {
    throw SolverError(solver + ": the energy at the start point is not finite (" +
                      std::to_string(res.energy) + ")");
  }
  const Stopwatch tg;
  std::vector<double> g = free_gradient(f, res.x, o.pinned, solver, 0);
  first_assembly += tg.seconds();
  res.gradient_norm = norm(g);
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
    Iterate it{k, res.x, res.energy, g, res.gradient_norm, previous_step, false};
    LineSearchResult ls;
    bool decrement_met = false;
    for (;;) {
      Direction d = direction(it);
      if (static_cast<int64_t>(d.dx.size()) != n) {
        throw SolverError(solver + ": iteration " + std::to_string(k) + ": the direction has " +
                          std::to_string(d.dx.size()) + " values, expected " + std::to_string(n));
      }
      o.pinned.zero(d.dx);
      rec.assembly_seconds += d.assembly_seconds;
      rec.linear_solve_seconds += d.linear_solve_seconds;
      rec.linear_iterations += d.linear_iterations;
      rec.shift = d.shift;
      rec.gradient_fallback = d.fallback;
      if (d.newton_step) {
        rec.newton_decrement = -dot(g, d.dx) / 2;
        if (rec.newton_decrement >= 0 && rec.newton_decrement <= o.decrement_tolerance) {
          decrement_met = true;
          break;
        }
      }
      const Stopwatch search;
      ls = armijo_line_search(energy, res.x, res.energy, g, d.dx, d.initial_step, o.line_search);
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
    res.x = std::move(ls.x);
    res.energy = ls.energy;
    const Stopwatch ta;
    g = free_gradient(f, res.x, o.pinned, solver, k + 1);
    rec.assembly_seconds += ta.seconds();
    res.gradient_norm = norm(g);
    rec.seconds += iteration.seconds();
    res.iterations.push_back(rec);
  }
  res.seconds = total.seconds();
  return res;
}

}  // namespace dualjit::solvers
