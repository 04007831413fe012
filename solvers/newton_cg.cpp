#include "solvers/newton_cg.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "solvers/descent_loop.h"
#include "solvers/solver_error.h"
#include "solvers/stopwatch.h"

namespace dualjit::solvers {

SolveResult newton_cg(Objective& f, std::span<const double> x0, const NewtonCgOptions& o) {
  // CG's work vectors, made once: on a GPU objective they stay in device memory and a CG
  // iteration reads back only p.Hp and r.r.
  std::optional<Vector> r, p, hp;
  const DirectionRule rule = [&](const Iterate& it, Vector& dx) {
    const VectorSpace& v = it.space;
    Direction d;
    d.newton_step = true;
    const Stopwatch total;
    const int64_t n = it.gradient.size();
    if (!r) {
      r = v.zeros(n);
      p = v.zeros(n);
      hp = v.zeros(n);
    }
    const double eta = std::min(o.max_forcing, std::sqrt(it.gradient_norm));
    const double target = eta * it.gradient_norm;
    v.set_zero(dx);
    v.axpby(-1, it.gradient, 0, *r);
    v.copy(*r, *p);
    double rr = it.gradient_norm * it.gradient_norm;  // r = -g
    for (int j = 0; j < o.max_cg_iterations; ++j) {
      const Stopwatch product;
      f.hvp(it.x, *p, *hp);
      if (it.free) v.apply_mask(*it.free, *hp);
      const double php = v.dot(*p, *hp);  // waits for the product: its time is the product's
      d.assembly_seconds += product.seconds();
      if (!std::isfinite(php)) {
        throw SolverError("newton-cg: iteration " + std::to_string(it.iteration) +
                          ": p.Hp is not finite at CG iteration " + std::to_string(j));
      }
      ++d.linear_iterations;
      if (php <= 0) {
        // Negative curvature: what CG has built so far is still a descent direction; with
        // nothing built yet, -g.
        if (j == 0) v.copy(*r, dx);
        break;
      }
      const double alpha = rr / php;
      v.axpby(alpha, *p, 1, dx);
      v.axpby(-alpha, *hp, 1, *r);
      const double rr_next = v.dot(*r, *r);
      if (std::sqrt(rr_next) <= target) break;
      const double beta = rr_next / rr;
      rr = rr_next;
      v.axpby(1, *r, beta, *p);
    }
    d.linear_solve_seconds = total.seconds() - d.assembly_seconds;
    return d;
  };
  return descent_loop("newton-cg", f, x0, o, rule);
}

}  // namespace dualjit::solvers
