#include "solvers/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <string>

#include "solvers/descent_loop.h"
#include "solvers/solver_error.h"
#include "solvers/stopwatch.h"

namespace dualjit::solvers {

namespace {

struct Pair {
  Vector s, y;
  double rho = 0;  // 1 / s.y
  double yy = 0;   // y.y, for the newest pair's gamma
};

}  // namespace

SolveResult lbfgs(Objective& f, std::span<const double> x0, const LbfgsOptions& o) {
  if (o.memory < 1) throw SolverError("lbfgs: memory " + std::to_string(o.memory) + " < 1");
  std::deque<Pair> pairs;  // oldest first
  std::optional<Vector> x_prev, g_prev;
  std::vector<Vector> spare;  // storage of dropped pairs, reused
  const DirectionRule rule = [&](const Iterate& it) {
    const Stopwatch t;
    const VectorSpace& v = it.space;
    Direction d;
    const int64_t n = it.x.size();
    const auto make = [&] {
      if (spare.empty()) return v.zeros(n);
      Vector w = std::move(spare.back());
      spare.pop_back();
      return w;
    };
    if (it.retry) {
      for (Pair& p : pairs) {
        spare.push_back(std::move(p.s));
        spare.push_back(std::move(p.y));
      }
      pairs.clear();
    } else if (x_prev) {
      Pair p{make(), make(), 0, 0};
      v.add_scaled(it.x, -1, *x_prev, p.s);
      v.add_scaled(it.gradient, -1, *g_prev, p.y);
      const double sy = v.dot(p.s, p.y), ss = v.dot(p.s, p.s);
      p.yy = v.dot(p.y, p.y);
      if (sy > o.curvature_epsilon * std::sqrt(ss) * std::sqrt(p.yy)) {
        p.rho = 1 / sy;
        pairs.push_back(std::move(p));
        if (static_cast<int>(pairs.size()) > o.memory) {
          spare.push_back(std::move(pairs.front().s));
          spare.push_back(std::move(pairs.front().y));
          pairs.pop_front();
        }
      } else {
        spare.push_back(std::move(p.s));
        spare.push_back(std::move(p.y));
      }
    }
    if (!x_prev) {
      x_prev = v.zeros(n);
      g_prev = v.zeros(n);
    }
    v.copy(it.x, *x_prev);
    v.copy(it.gradient, *g_prev);

    Vector q = v.clone(it.gradient);
    if (pairs.empty()) {
      d.initial_step = std::min(1.0, 1.0 / it.gradient_norm);
      d.fallback = it.retry;
    } else {
      std::vector<double> a(pairs.size());
      for (size_t i = pairs.size(); i-- > 0;) {
        a[i] = pairs[i].rho * v.dot(pairs[i].s, q);
        v.axpby(-a[i], pairs[i].y, 1, q);
      }
      const Pair& newest = pairs.back();
      const double gamma = 1 / (newest.rho * newest.yy);  // s.y / y.y
      // H_0 = gamma I is applied inside the first update: with q' = gamma q,
      // b = rho y.q' = gamma rho y.q and q' + (a - b) s = gamma q + (a - b) s.
      for (size_t i = 0; i < pairs.size(); ++i) {
        const double scale = i == 0 ? gamma : 1.0;
        const double b = scale * pairs[i].rho * v.dot(pairs[i].y, q);
        v.axpby(a[i] - b, pairs[i].s, scale, q);
      }
      d.retry_on_failure = true;
    }
    v.axpby(-1, q, 0, q);
    d.dx = std::move(q);
    d.linear_solve_seconds = t.seconds();
    return d;
  };
  return descent_loop("lbfgs", f, x0, o, rule);
}

}  // namespace dualjit::solvers
