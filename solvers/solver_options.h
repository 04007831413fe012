// Options every optimisation solver shares: when to stop, the line search, pinned DOFs.
#pragma once

#include "solvers/line_search.h"
#include "solvers/pinned.h"

namespace dualjit::solvers {

struct SolverOptions {
  int max_iterations = 200;  // steps taken at most
  // Converged when |g| <= gradient_tolerance, or |g| <= relative_gradient_tolerance |g_0|
  // (g over the free DOFs, Euclidean norm); 0 turns a test off.
  double gradient_tolerance = 1e-10;
  double relative_gradient_tolerance = 1e-10;
  // Newton and Newton-CG: converged when lambda^2 / 2 = -g.dx / 2 <= decrement_tolerance,
  // before stepping (the predicted decrease of the energy is then below it).
  double decrement_tolerance = 1e-14;
  LineSearchOptions line_search;
  // DOFs kept at their starting values (empty: none).
  PinnedDofs pinned;
};

}  // namespace dualjit::solvers
