#include "solvers/givens_least_squares.h"

#include <algorithm>
#include <cmath>

namespace dualjit::solvers {

GivensLeastSquares::GivensLeastSquares(int max_columns)
    : dim_(max_columns),
      r_(static_cast<size_t>(max_columns + 1) * max_columns),
      cs_(max_columns),
      sn_(max_columns),
      g_(max_columns + 1),
      y_(max_columns) {}

void GivensLeastSquares::reset(double beta) {
  std::fill(g_.begin(), g_.end(), 0.0);
  g_[0] = beta;
  k_ = 0;
}

double GivensLeastSquares::add_column(double* h) {
  const int j = k_;
  // The previous rotations, then the one that zeroes H(j+1, j): H becomes R, g the rotated
  // right-hand side whose last entry is the residual of the least-squares problem.
  for (int i = 0; i < j; ++i) {
    const double t = cs_[i] * h[i] + sn_[i] * h[i + 1];
    h[i + 1] = -sn_[i] * h[i] + cs_[i] * h[i + 1];
    h[i] = t;
  }
  const double rho = std::hypot(h[j], h[j + 1]);
  if (rho == 0) return -1;
  cs_[j] = h[j] / rho;
  sn_[j] = h[j + 1] / rho;
  h[j] = rho;
  h[j + 1] = 0;
  g_[j + 1] = -sn_[j] * g_[j];
  g_[j] = cs_[j] * g_[j];
  std::copy(h, h + j + 1, r_.begin() + static_cast<size_t>(j) * (dim_ + 1));
  k_ = j + 1;
  return std::abs(g_[j + 1]);
}

const std::vector<double>& GivensLeastSquares::solve() {
  const size_t rows = static_cast<size_t>(dim_) + 1;
  for (int i = k_ - 1; i >= 0; --i) {
    double s = g_[i];
    for (int l = i + 1; l < k_; ++l) s -= r_[l * rows + i] * y_[l];
    y_[i] = s / r_[i * rows + i];
  }
  return y_;
}

double GivensLeastSquares::residual() const {
  return std::abs(g_[k_]);
}

}  // namespace dualjit::solvers
