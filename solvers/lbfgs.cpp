#include "solvers/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "solvers/descent_loop.h"
#include "solvers/solver_error.h"
#include "solvers/stopwatch.h"

namespace dualjit::solvers {

namespace {

// The curvature pairs, oldest first, with the inner products the compact form needs:
// sy[i][j] = s_i . y_j for i <= j (R's upper triangle and D), yy[i][j] = y_i . y_j.
struct Memory {
  std::deque<Vector> s, y;
  std::deque<std::deque<double>> sy, yy;
  std::vector<Vector> spare;  // storage of dropped pairs, reused

  size_t size() const { return s.size(); }
  void drop_oldest() {
    spare.push_back(std::move(s.front()));
    spare.push_back(std::move(y.front()));
    s.pop_front();
    y.pop_front();
    for (auto* m : {&sy, &yy}) {
      m->pop_front();
      for (auto& row : *m) row.pop_front();
    }
  }
  void clear() {
    while (size() > 0) drop_oldest();
  }
  Vector take(const VectorSpace& v, int64_t n) {
    if (spare.empty()) return v.zeros(n);
    Vector w = std::move(spare.back());
    spare.pop_back();
    return w;
  }
};

// Solves R x = b for the upper triangular R = sy (i <= j) in place.
void solve_upper(const std::deque<std::deque<double>>& sy, std::vector<double>& b) {
  for (size_t i = b.size(); i-- > 0;) {
    for (size_t j = i + 1; j < b.size(); ++j) b[i] -= sy[i][j] * b[j];
    b[i] /= sy[i][i];
  }
}

// Solves R^T x = b in place.
void solve_upper_transposed(const std::deque<std::deque<double>>& sy, std::vector<double>& b) {
  for (size_t i = 0; i < b.size(); ++i) {
    for (size_t j = 0; j < i; ++j) b[i] -= sy[j][i] * b[j];
    b[i] /= sy[i][i];
  }
}

}  // namespace

SolveResult lbfgs(Objective& f, std::span<const double> x0, const LbfgsOptions& o) {
  if (o.memory < 1) throw SolverError("lbfgs: memory " + std::to_string(o.memory) + " < 1");
  Memory mem;
  std::optional<Vector> x_prev, g_prev;
  // The compact form of Byrd, Nocedal and Schnabel (1994) instead of the two-loop recursion:
  // H g = gamma g + S w1 - gamma Y t with t = R^-1 S^T g and
  // w1 = R^-T ((D + gamma Y^T Y) t - gamma Y^T g). Its inner products are all known once the
  // new pair is: one batch of dots (one synchronisation on a GPU) and one combination per
  // iteration, where the recursion needs 2m dependent dots.
  const DirectionRule rule = [&](const Iterate& it, Vector& dx) {
    const Stopwatch t;
    const VectorSpace& v = it.space;
    Direction d;
    const int64_t n = it.x.size();
    std::vector<double> sg, yg;  // S^T g, Y^T g over the pairs kept
    if (it.retry) {
      mem.clear();
    } else if (x_prev) {
      Vector s = mem.take(v, n), y = mem.take(v, n);
      v.add_scaled(it.x, -1, *x_prev, s);
      v.add_scaled(it.gradient, -1, *g_prev, y);
      const size_t k = mem.size();
      std::vector<const Vector*> a = {&s, &s, &y, &s, &y},
                                 b = {&y, &s, &y, &it.gradient, &it.gradient};
      for (size_t i = 0; i < k; ++i) {
        a.insert(a.end(), {&mem.s[i], &mem.y[i], &mem.s[i], &mem.y[i]});
        b.insert(b.end(), {&y, &y, &it.gradient, &it.gradient});
      }
      const std::vector<double> p = v.dots(a, b);
      const double sy = p[0], ss = p[1], yy = p[2];
      for (size_t i = 0; i < k; ++i) {
        sg.push_back(p[5 + 4 * i + 2]);
        yg.push_back(p[5 + 4 * i + 3]);
      }
      if (sy > o.curvature_epsilon * std::sqrt(ss) * std::sqrt(yy)) {
        for (size_t i = 0; i < k; ++i) {
          mem.sy[i].push_back(p[5 + 4 * i]);
          mem.yy[i].push_back(p[5 + 4 * i + 1]);
        }
        std::deque<double> sy_row(k + 1, 0.0), yy_row(k + 1, yy);
        sy_row[k] = sy;  // s_new . y_j for j < new is not part of R
        for (size_t i = 0; i < k; ++i) yy_row[i] = p[5 + 4 * i + 1];
        mem.sy.push_back(std::move(sy_row));
        mem.yy.push_back(std::move(yy_row));
        mem.s.push_back(std::move(s));
        mem.y.push_back(std::move(y));
        sg.push_back(p[3]);
        yg.push_back(p[4]);
        if (static_cast<int>(mem.size()) > o.memory) {
          mem.drop_oldest();
          sg.erase(sg.begin());
          yg.erase(yg.begin());
        }
      } else {
        mem.spare.push_back(std::move(s));
        mem.spare.push_back(std::move(y));
      }
    }
    if (!x_prev) {
      x_prev = v.zeros(n);
      g_prev = v.zeros(n);
    }
    v.copy(it.x, *x_prev);
    v.copy(it.gradient, *g_prev);

    const size_t k = mem.size();
    if (k == 0) {
      v.axpby(-1, it.gradient, 0, dx);
      d.slope = -it.gradient_norm * it.gradient_norm;
      d.initial_step = std::min(1.0, 1.0 / it.gradient_norm);
      d.fallback = it.retry;
    } else {
      const double gamma = mem.sy[k - 1][k - 1] / mem.yy[k - 1][k - 1];
      std::vector<double> tt = sg;  // t = R^-1 S^T g
      solve_upper(mem.sy, tt);
      std::vector<double> w1(k);  // (D + gamma Y^T Y) t - gamma Y^T g, then R^-T of it
      for (size_t i = 0; i < k; ++i) {
        double r = mem.sy[i][i] * tt[i] - gamma * yg[i];
        for (size_t j = 0; j < k; ++j) r += gamma * mem.yy[i][j] * tt[j];
        w1[i] = r;
      }
      solve_upper_transposed(mem.sy, w1);
      // dx = -H g = -gamma g - S w1 + gamma Y t, and so g.dx from S^T g and Y^T g.
      std::vector<double> c = {-gamma};
      std::vector<const Vector*> terms = {&it.gradient};
      double slope = -gamma * it.gradient_norm * it.gradient_norm;
      for (size_t i = 0; i < k; ++i) {
        c.insert(c.end(), {-w1[i], gamma * tt[i]});
        terms.insert(terms.end(), {&mem.s[i], &mem.y[i]});
        slope += -w1[i] * sg[i] + gamma * tt[i] * yg[i];
      }
      d.slope = slope;
      v.combine(c, terms, 0.0, dx);
      d.retry_on_failure = true;
    }
    d.linear_solve_seconds = t.seconds();
    return d;
  };
  return descent_loop("lbfgs", f, x0, o, rule);
}

}  // namespace dualjit::solvers
