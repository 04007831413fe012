// Conjugate gradients on a symmetric positive definite block-CSR matrix, preconditioned by
// block Jacobi (block_jacobi.h), on the host. For pinned DOFs apply PinnedDofs::apply_identity
// to the matrix and zero the right-hand side there first.
#pragma once

#include <span>

#include "backends/mesh/block_csr.h"

namespace dualjit::solvers {

struct PcgOptions {
  double relative_tolerance = 1e-8;  // stop when |b - A x| <= tol |b|
  int max_iterations = 1000;
  bool block_jacobi = true;  // false: no preconditioner (plain CG)
};

struct PcgResult {
  bool converged = false;
  int iterations = 0;
  // |b - A x| / |b| of the returned x, recomputed (converged goes by CG's recurrence residual)
  double relative_residual = 0;
  // CG met p.Ap <= 0 (the matrix is not positive definite) and stopped there; x holds the
  // iterate before that direction.
  bool negative_curvature = false;
};

// Solves A x = b starting from the x given (zero it for no initial guess); x is overwritten.
// A must be square-blocked over a General pattern. Not converging is a result, not an error;
// a non-finite residual throws SolverError naming the iteration.
PcgResult block_pcg(const mesh::BlockCsr<double>& a, std::span<const double> b, std::span<double> x,
                    const PcgOptions& options = {});

}  // namespace dualjit::solvers
