// The loop every line-search method shares: evaluate, test convergence, ask a direction rule
// for a search direction, search along it (line_search.h), record (iteration_log.h). Newton,
// Newton-CG, L-BFGS and gradient descent are direction rules over it; so can be new methods.
// Every vector is the objective's (Objective::space()): on a GPU objective the loop moves only
// scalars to the host until it returns x.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "solvers/iteration_log.h"
#include "solvers/objective.h"
#include "solvers/solver_options.h"
#include "solvers/vector_space.h"

namespace dualjit::solvers {

struct Iterate {
  const VectorSpace& space;  // where x, gradient and the direction live
  int iteration = 0;
  const Vector& x;
  double energy = 0;
  const Vector& gradient;  // zero at pinned DOFs
  // 1 at free DOFs, 0 at pinned ones (VectorSpace::apply_mask); null when none is pinned.
  const Vector* free = nullptr;
  double gradient_norm = 0;
  double previous_step = 0;  // alpha accepted at the previous iteration; 0 at the first
  bool retry = false;        // the last direction from this iterate failed its line search
};

struct Direction {
  double initial_step = 1;   // the line search's first trial
  bool newton_step = false;  // dx solves (approximately) H dx = -g: test the decrement
  int linear_iterations = 0;
  double shift = 0;
  bool fallback = false;  // the rule gave up on its own direction and took -g
  double assembly_seconds = 0, linear_solve_seconds = 0;
  // When the line search fails, call the rule again with Iterate::retry (L-BFGS drops its
  // memory and tries -g once) instead of stopping.
  bool retry_on_failure = false;
  // g.dx where the rule has it from inner products it already holds (-|g|^2 for dx = -g): the
  // line search then skips its own dot, a synchronisation on a GPU.
  std::optional<double> slope;
};

// Writes the search direction into dx (n values of the objective's space, holding whatever it
// held before; the loop zeroes its pinned DOFs afterwards, whatever the rule left there).
using DirectionRule = std::function<Direction(const Iterate&, Vector& dx)>;

// Minimises f from x0 (n_dofs values). Throws SolverError naming `solver` when x0 has the wrong
// size or a non-finite energy or gradient.
SolveResult descent_loop(const std::string& solver, Objective& f, std::span<const double> x0,
                         const SolverOptions& options, const DirectionRule& direction);

}  // namespace dualjit::solvers
