// Backtracking line search with the Armijo (sufficient decrease) condition
//   E(x + a dx) <= E(x) + c1 a g.dx,
// starting from a given step and shrinking it by a constant factor. A trial whose energy is not
// finite (an inverted element, a log of a negative number) counts as a failed trial. An
// optional rule bounds the step from above: for a parameterization, the largest step before a
// triangle flips (Smith & Schaefer 2015); the first trial is then at most a fraction (0.9) of it,
// so that the accepted point is strictly inside the admissible region. The vectors are the
// objective's (vector_space.h); only energies, g.dx and the rule's bound come back to the host.
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "solvers/vector_space.h"

namespace dualjit::solvers {

// The largest admissible alpha along dx from x (+infinity when unbounded), x and dx in the
// objective's space; element_step_bound.h evaluates one where the vectors are. A value <= 0 or
// NaN means no step is admissible, and the search fails.
using MaxStepRule = std::function<double(const Vector& x, const Vector& dx)>;
using EnergyFunction = std::function<double(const Vector& x)>;

struct LineSearchOptions {
  double c1 = 1e-4;                // Armijo constant, in (0, 1)
  double shrink = 0.5;             // step factor after a rejected trial, in (0, 1)
  int max_tries = 60;              // energy evaluations before giving up
  MaxStepRule max_step;            // none: unbounded
  double max_step_fraction = 0.9;  // of max_step's bound, in (0, 1]
};

struct LineSearchResult {
  bool accepted = false;
  double alpha = 0;                                           // the accepted step; 0 when none
  double energy = 0;                                          // E(x + alpha dx); E(x) when none
  int evaluations = 0;                                        // energy evaluations made
  double slope = 0;                                           // g.dx
  double max_step = std::numeric_limits<double>::infinity();  // the rule's bound
  std::string failure;  // why nothing was accepted: not descent, no admissible step, tries
};

// Searches from min(initial_step, max_step_fraction * max_step). energy_x is E(x) and gradient
// its gradient (only g.dx is used). Throws SolverError for invalid options or sizes; a failed
// search is a result with accepted == false, for the caller to act on.
// x, gradient, dx and trial are vectors of `space`; when a step is accepted, trial holds
// x + alpha dx (the trials are evaluated there). slope: g.dx when the caller knows it (then
// gradient is not read).
LineSearchResult armijo_line_search(const VectorSpace& space, const EnergyFunction& energy,
                                    const Vector& x, double energy_x, const Vector& gradient,
                                    const Vector& dx, double initial_step,
                                    const LineSearchOptions& options, Vector& trial,
                                    std::optional<double> slope = std::nullopt);

}  // namespace dualjit::solvers
