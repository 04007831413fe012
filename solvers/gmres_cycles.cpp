#include "solvers/gmres_cycles.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "solvers/givens_least_squares.h"
#include "solvers/solver_error.h"

namespace dualjit::solvers {
namespace {

// A new vector below this fraction of |A z| lies in the Krylov space to rounding: the solution
// of the preconditioned system is in the space (happy breakdown). Normalising it would divide
// noise by almost zero.
constexpr double kBreakdown = 1e-14;

}  // namespace

GmresResult run_gmres_cycles(ArnoldiProcess& arnoldi, const GmresOptions& o, const char* who) {
  const int dim = o.restart;
  GmresResult res;
  double beta = arnoldi.residual();
  if (!std::isfinite(beta)) {
    throw SolverError(std::string(who) + ": the initial residual (iteration 0) is not finite");
  }
  res.initial_residual = beta;
  res.residual = beta;
  const double target = std::max(o.rtol * beta, o.atol);
  if (beta <= target) {
    res.converged = true;
    return res;
  }
  std::vector<double> h(dim + 1);
  GivensLeastSquares least_squares(dim);
  while (res.iterations < o.max_iterations) {
    arnoldi.start(beta);
    least_squares.reset(beta);
    // A M^-1 maps the Krylov space into itself and the residual is not zero there: the
    // preconditioned operator is singular on it and no restart can do better.
    bool stagnated = false;
    while (least_squares.columns() < dim && res.iterations < o.max_iterations) {
      const int j = least_squares.columns();
      const double w_norm0 = arnoldi.step(j, h.data());
      ++res.iterations;
      bool finite = std::isfinite(w_norm0);
      for (int i = 0; i <= j + 1; ++i) finite = finite && std::isfinite(h[i]);
      if (!finite) {
        throw SolverError(std::string(who) + ": A M^-1 v is not finite at iteration " +
                          std::to_string(res.iterations));
      }
      const double w_norm = h[j + 1];
      const double estimate = least_squares.add_column(h.data());
      if (estimate < 0) {
        // This column adds nothing to the least-squares problem (and would be a zero pivot).
        res.history.push_back(least_squares.residual());
        stagnated = true;
        break;
      }
      res.history.push_back(estimate);
      if (estimate <= target || w_norm <= kBreakdown * w_norm0) break;
      arnoldi.extend(j, w_norm);
    }
    const int k = least_squares.columns();
    if (k > 0) arnoldi.update(least_squares.solve(), k);
    // The true residual, not the estimate: the restart starts from it and converged goes by it
    // (the recurrence drifts from it in the last digits).
    beta = arnoldi.residual();
    if (!std::isfinite(beta)) {
      throw SolverError(std::string(who) + ": the residual is not finite after iteration " +
                        std::to_string(res.iterations));
    }
    res.residual = beta;
    if (beta <= target) {
      res.converged = true;
      break;
    }
    if (stagnated) break;
  }
  return res;
}

}  // namespace dualjit::solvers
