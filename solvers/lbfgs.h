// Limited-memory BFGS: the direction is -H_k g from the two-loop recursion over the last m
// pairs s = x_{k+1} - x_k, y = g_{k+1} - g_k, with H_0 = gamma I, gamma = s.y / y.y of the newest
// pair; then an Armijo line search from alpha = 1. A pair with s.y <= curvature_epsilon |s| |y|
// is not stored (it would make H_k indefinite). The first step, without pairs, is along -g
// with a first trial of min(1, 1 / |g|). When the line search fails along an L-BFGS direction,
// the memory is dropped and -g is tried once before the solver stops.
#pragma once

#include <span>

#include "solvers/iteration_log.h"
#include "solvers/objective.h"
#include "solvers/solver_options.h"

namespace dualjit::solvers {

struct LbfgsOptions : SolverOptions {
  int memory = 8;
  double curvature_epsilon = 1e-12;
};

// Throws SolverError naming "lbfgs" for wrong sizes, a memory < 1 or non-finite values.
SolveResult lbfgs(Objective& f, std::span<const double> x0, const LbfgsOptions& options = {});

}  // namespace dualjit::solvers
