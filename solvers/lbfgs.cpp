#include "solvers/lbfgs.h"

#include <algorithm>
#include <deque>
#include <string>

#include "solvers/descent_loop.h"
#include "solvers/solver_error.h"
#include "solvers/stopwatch.h"
#include "solvers/vector_ops.h"

namespace dualjit::solvers {

namespace {

struct Pair {
  std::vector<double> s, y;
  double rho = 0;  // 1 / s.y
};

}  // namespace

SolveResult lbfgs(Objective& f, std::span<const double> x0, const LbfgsOptions& o) {
  if (o.memory < 1) throw SolverError("lbfgs: memory " + std::to_string(o.memory) + " < 1");
  std::deque<Pair> pairs;  // oldest first
  std::vector<double> x_prev, g_prev;
  const DirectionRule rule = [&](const Iterate& it) {
    const Stopwatch t;
    Direction d;
    const size_t n = it.x.size();
    if (it.retry) {
      pairs.clear();
    } else if (!x_prev.empty()) {
      Pair p{std::vector<double>(n), std::vector<double>(n), 0};
      for (size_t i = 0; i < n; ++i) {
        p.s[i] = it.x[i] - x_prev[i];
        p.y[i] = it.gradient[i] - g_prev[i];
      }
      const double sy = dot(p.s, p.y);
      if (sy > o.curvature_epsilon * norm(p.s) * norm(p.y)) {
        p.rho = 1 / sy;
        pairs.push_back(std::move(p));
        if (static_cast<int>(pairs.size()) > o.memory) pairs.pop_front();
      }
    }
    x_prev.assign(it.x.begin(), it.x.end());
    g_prev.assign(it.gradient.begin(), it.gradient.end());

    std::vector<double> q(it.gradient.begin(), it.gradient.end());
    if (pairs.empty()) {
      d.initial_step = std::min(1.0, 1.0 / it.gradient_norm);
      d.fallback = it.retry;
    } else {
      std::vector<double> a(pairs.size());
      for (size_t i = pairs.size(); i-- > 0;) {
        a[i] = pairs[i].rho * dot(pairs[i].s, q);
        axpy(-a[i], pairs[i].y, q);
      }
      const Pair& newest = pairs.back();
      const double gamma = dot(newest.s, newest.y) / dot(newest.y, newest.y);
      for (double& v : q) v *= gamma;
      for (size_t i = 0; i < pairs.size(); ++i) {
        const double b = pairs[i].rho * dot(pairs[i].y, q);
        axpy(a[i] - b, pairs[i].s, q);
      }
      d.retry_on_failure = true;
    }
    for (double& v : q) v = -v;
    d.dx = std::move(q);
    d.linear_solve_seconds = t.seconds();
    return d;
  };
  return descent_loop("lbfgs", f, x0, o, rule);
}

}  // namespace dualjit::solvers
