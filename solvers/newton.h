// Newton's method with a line search: solve H dx = -g (sparse Cholesky or block-Jacobi PCG, with
// identity rows and columns at pinned DOFs), search along dx (Armijo, optional max-step rule),
// stop on the gradient norm or the Newton decrement.
//
// Regularisation: when H is not positive definite (the Cholesky factorization fails or PCG
// meets negative curvature) or dx is not a descent direction (g.dx > -descent_threshold |g||dx|),
// H + shift I is solved instead, shift = initial_shift x (the mean |diagonal| of H), growing by
// shift_growth per retry, up to max_shift_tries retries; when all fail, the step is along -g
// (IterationRecord::gradient_fallback). Each iteration starts unshifted, so near a minimum with
// a positive definite Hessian the iteration is the exact Newton method and converges
// quadratically.
#pragma once

#include <span>

#include "solvers/block_pcg.h"
#include "solvers/iteration_log.h"
#include "solvers/objective.h"
#include "solvers/solver_options.h"

namespace dualjit::solvers {

// SparseCholesky and BlockPcg on the host (objective.hessian(); -g and dx cross to and from a
// GPU objective's space); DevicePcg on the GPU over objective.device_hessian() and the
// objective's device vectors (device_pcg.h), nothing crossing.
enum class LinearSolver { SparseCholesky, BlockPcg, DevicePcg };

struct NewtonOptions : SolverOptions {
  LinearSolver linear_solver = LinearSolver::SparseCholesky;
  // For BlockPcg and DevicePcg; its relative tolerance also decides how inexact the Newton step is.
  PcgOptions pcg{.relative_tolerance = 1e-10, .max_iterations = 2000, .block_jacobi = true};
  double initial_shift = 1e-4;
  double shift_growth = 10;
  int max_shift_tries = 12;
  double descent_threshold = 1e-12;
};

// Throws SolverError naming "newton" and the iteration for wrong sizes, non-finite energies or
// gradients at accepted points, or a Hessian whose shape does not match the objective.
SolveResult newton(Objective& f, std::span<const double> x0, const NewtonOptions& options = {});

}  // namespace dualjit::solvers
