#include "solvers/newton_cg.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "solvers/descent_loop.h"
#include "solvers/solver_error.h"
#include "solvers/stopwatch.h"
#include "solvers/vector_ops.h"

namespace dualjit::solvers {

SolveResult newton_cg(Objective& f, std::span<const double> x0, const NewtonCgOptions& o) {
  const DirectionRule rule = [&](const Iterate& it) {
    Direction d;
    d.newton_step = true;
    const Stopwatch total;
    const size_t n = it.gradient.size();
    const double eta = std::min(o.max_forcing, std::sqrt(it.gradient_norm));
    const double target = eta * it.gradient_norm;
    std::vector<double> dx(n, 0.0), r(n), p(n);
    for (size_t i = 0; i < n; ++i) r[i] = -it.gradient[i];
    p = r;
    double rr = dot(r, r);
    for (int j = 0; j < o.max_cg_iterations; ++j) {
      const Stopwatch product;
      std::vector<double> hp = f.hvp(it.x, p);
      d.assembly_seconds += product.seconds();
      if (hp.size() != n) {
        throw SolverError("newton-cg: iteration " + std::to_string(it.iteration) +
                          ": the HVP has " + std::to_string(hp.size()) + " values, expected " +
                          std::to_string(n));
      }
      o.pinned.zero(hp);
      const double php = dot(p, hp);
      if (!std::isfinite(php)) {
        throw SolverError("newton-cg: iteration " + std::to_string(it.iteration) +
                          ": p.Hp is not finite at CG iteration " + std::to_string(j));
      }
      ++d.linear_iterations;
      if (php <= 0) {
        // Negative curvature: what CG has built so far is still a descent direction; with
        // nothing built yet, -g.
        if (j == 0) dx = r;
        break;
      }
      const double alpha = rr / php;
      axpy(alpha, p, dx);
      axpy(-alpha, hp, r);
      const double rr_next = dot(r, r);
      if (std::sqrt(rr_next) <= target) break;
      const double beta = rr_next / rr;
      rr = rr_next;
      for (size_t i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
    }
    d.dx = std::move(dx);
    d.linear_solve_seconds = total.seconds() - d.assembly_seconds;
    return d;
  };
  return descent_loop("newton-cg", f, x0, o, rule);
}

}  // namespace dualjit::solvers
