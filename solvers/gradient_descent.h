// Gradient descent: dx = -g with an Armijo line search. The first trial step is initial_step at
// the first iteration and growth x the previously accepted step afterwards, so the search
// adapts to the curvature instead of shrinking from 1 every time.
#pragma once

#include <span>

#include "solvers/iteration_log.h"
#include "solvers/objective.h"
#include "solvers/solver_options.h"

namespace dualjit::solvers {

struct GradientDescentOptions : SolverOptions {
  double initial_step = 1;
  double growth = 2;
};

// Throws SolverError naming "gradient-descent" for wrong sizes or non-finite values.
SolveResult gradient_descent(Objective& f, std::span<const double> x0,
                             const GradientDescentOptions& options = {});

}  // namespace dualjit::solvers
