#include "solvers/gradient_descent.h"

#include "solvers/descent_loop.h"

namespace dualjit::solvers {

SolveResult gradient_descent(Objective& f, std::span<const double> x0,
                             const GradientDescentOptions& o) {
  const DirectionRule rule = [&](const Iterate& it, Vector& dx) {
    Direction d;
    it.space.axpby(-1, it.gradient, 0, dx);
    d.slope = -it.gradient_norm * it.gradient_norm;
    d.initial_step = it.previous_step > 0 ? o.growth * it.previous_step : o.initial_step;
    return d;
  };
  return descent_loop("gradient-descent", f, x0, o, rule);
}

}  // namespace dualjit::solvers
