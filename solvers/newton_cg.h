// Matrix-free truncated Newton (Newton-CG): each step solves H dx = -g approximately by CG on
// Hessian-vector products (Objective::hvp), never forming H, then searches along dx (Armijo).
// Steihaug-style truncation: CG stops at the forcing tolerance |r| <= eta |g| with
// eta = min(0.5, sqrt(|g|)) (superlinear convergence near the minimum), or at the first
// direction of non-positive curvature, returning the iterate so far (-g when that is the
// first direction). Pinned DOFs are projected out of every product (P H P).
#pragma once

#include <span>

#include "solvers/iteration_log.h"
#include "solvers/objective.h"
#include "solvers/solver_options.h"

namespace dualjit::solvers {

struct NewtonCgOptions : SolverOptions {
  int max_cg_iterations = 500;  // per Newton step
  double max_forcing = 0.5;     // eta = min(max_forcing, sqrt(|g|))
};

// Throws SolverError naming "newton-cg" and the iteration for wrong sizes or non-finite values.
SolveResult newton_cg(Objective& f, std::span<const double> x0,
                      const NewtonCgOptions& options = {});

}  // namespace dualjit::solvers
