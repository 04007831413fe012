// GMRES's small least-squares problem min |beta e1 - H y| over the Arnoldi columns of one
// cycle, kept as a QR factorisation by Givens rotations as the columns arrive, so the residual
// norm is known after every column without solving. Shared by gmres.h and device_gmres.h.
#pragma once

#include <vector>

namespace dualjit::solvers {

class GivensLeastSquares {
 public:
  explicit GivensLeastSquares(int max_columns);

  // Starts a cycle whose residual has norm beta.
  void reset(double beta);
  // Takes column j = columns() of H (its j + 2 entries h[0..j+1], overwritten by R's column)
  // and returns the new residual estimate. Returns a negative number, keeping the column out,
  // when it adds nothing (after the rotations its pivot is zero).
  double add_column(double* h);
  int columns() const { return k_; }
  // The residual norm over the columns taken (beta before the first).
  double residual() const;
  // y = R^-1 g over the columns taken, the coefficients of the basis vectors.
  const std::vector<double>& solve();

 private:
  int dim_;
  int k_ = 0;
  std::vector<double> r_, cs_, sn_, g_, y_;  // r_: column-major, (dim + 1) x dim
};

}  // namespace dualjit::solvers
