// Restarted, right-preconditioned GMRES(m) on host vectors, for nonsymmetric systems (the
// Newton steps of an implicit CFD solver), with the operator and preconditioner as callbacks.
#pragma once

#include <functional>
#include <span>
#include <vector>

namespace dualjit::solvers {

// y = A x (or z = M^-1 r for a preconditioner); spans of the system's size. y is overwritten
// and never aliases x.
using LinearOperator = std::function<void(std::span<const double> x, std::span<double> y)>;

struct GmresOptions {
  int restart = 30;           // Krylov vectors per cycle
  int max_iterations = 1000;  // matrix-vector products in all
  double rtol = 1e-6;         // stop at ||b - A x|| <= max(rtol ||b - A x0||, atol)
  double atol = 0;
};

struct GmresResult {
  bool converged = false;
  // Matrix-vector products of the Arnoldi process (one per Krylov vector); the products that
  // form the initial residual and the true residual at each restart are not counted.
  int iterations = 0;
  double initial_residual = 0;  // ||b - A x0||
  double residual = 0;          // the true ||b - A x|| at return (recomputed, not the estimate)
  std::vector<double> history;  // the estimated residual norm after each iteration
};

// Solves A x = b from the given x in place. An empty m (no target) means no preconditioner.
// Right preconditioning (A M^-1 u = b, x = M^-1 u) keeps the residual GMRES minimises that of
// the original system, so the tolerances mean the same with and without M. converged goes by
// the true residual recomputed at the end of each cycle; not converging is a result, not an
// error. Throws SolverError when sizes disagree, options are invalid, or a non-finite value
// appears (naming the iteration).
GmresResult gmres(const LinearOperator& a, const LinearOperator& m, std::span<const double> b,
                  std::span<double> x, const GmresOptions& options = {});

}  // namespace dualjit::solvers
