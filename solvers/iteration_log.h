// What every optimisation solver returns: the final point, why it stopped, and one record per
// iterate, with a text table of the convergence history.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dualjit::solvers {

// Record k describes iterate x_k and the step taken from it; the last record is the returned
// point, with step 0 when the solver stopped there without stepping.
struct IterationRecord {
  int iteration = 0;
  double energy = 0;            // E(x_k)
  double gradient_norm = 0;     // |g(x_k)| over the free DOFs (Euclidean)
  double step = 0;              // accepted line-search alpha; 0: no step taken
  double newton_decrement = 0;  // lambda^2 / 2 = -g.dx / 2 for Newton and Newton-CG, else 0
  int linear_iterations = 0;    // PCG or CG iterations (0 for a direct solve)
  int line_search_evaluations = 0;
  // Newton: the diagonal shift that made the direction a descent direction (0: none), and
  // whether every shift failed and the step was along -g (also L-BFGS after a reset).
  double shift = 0;
  bool gradient_fallback = false;
  // Wall time of the iteration and its parts: energy, gradient, Hessian and HVP evaluations
  // outside the line search; the linear solve (factorization, PCG, CG, L-BFGS two-loop); the
  // line search's energy evaluations.
  double seconds = 0;
  double assembly_seconds = 0;
  double linear_solve_seconds = 0;
  double line_search_seconds = 0;
};

enum class StopReason {
  GradientNorm,          // |g| <= gradient_tolerance
  RelativeGradientNorm,  // |g| <= relative_gradient_tolerance |g_0|
  NewtonDecrement,       // lambda^2 / 2 <= decrement_tolerance
  MaxIterations,
  LineSearchFailed,  // no step met the Armijo condition (often: converged to round-off)
};
std::string_view stop_reason_name(StopReason reason);  // "gradient norm", ...
// The first three.
bool is_converged(StopReason reason);

struct SolveResult {
  std::vector<double> x;
  double energy = 0;
  double gradient_norm = 0;
  StopReason reason = StopReason::MaxIterations;
  std::vector<IterationRecord> iterations;
  double seconds = 0;
  std::string solver;   // "newton", "newton-cg", "lbfgs", "gradient-descent"
  std::string message;  // the line search's failure, when that stopped the solver

  bool converged() const { return is_converged(reason); }
  int n_steps() const;  // records with a step taken
};

// One line per record: iteration, energy, |g|, step, decrement, linear iterations, line-search
// evaluations, shift (* after it: the step fell back to -g), seconds and their split into
// assembly, linear solve and line search; then the solver, the stop reason and the time.
std::string format_log(const SolveResult& result);

}  // namespace dualjit::solvers
