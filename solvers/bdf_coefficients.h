// The coefficients of the numerical differentiation formulas of orders 1-5 in backward-
// difference form (Shampine and Reichelt, "The MATLAB ODE Suite", 1997; SciPy's BDF): with
// the differences D_j of the solution at equal steps h, order q solves
//   (1 - kappa_q) gamma_q (y_new - y_pred) = h f(y_new) - sum_{j=1..q} gamma_j D_j
// and estimates the error as error_const_q times the correction y_new - y_pred. kappa = 0
// gives the BDFs; the NDFs' kappa buys the same accuracy with steps ~20% longer.
#pragma once

#include <algorithm>
#include <array>
#include <limits>

#include "solvers/bdf_step_control.nvrtc.h"

namespace dualjit::solvers::bdf {

constexpr int kMaxOrder = 5;
// Differences kept per system: D_0 (the solution) to D_{q+2} for the order change.
constexpr int kDifferences = kMaxOrder + 3;

// The Newton iteration stops when its estimated remaining error, rate / (1 - rate) times the
// last correction's norm, is below newton_tolerance. The norm is in the units of the error
// test (weights atol + rtol |y|), which accepts corrections of norm up to 1 / error_const (2
// to 6), so a tolerance independent of rtol keeps the iteration's error near 1% of what the
// error test allows, as CVODE's constant coefficient does; SciPy's min(0.03, sqrt(rtol))
// tightens it further for small rtol and costs Newton iterations, Jacobians and
// factorisations there. Never below 10 eps / rtol, where round-off would keep the iteration
// from meeting it.
constexpr double kNewtonTolerance = 0.03;
// The scale of corrections from an LU of I - c_lu J kept for a step's c (kLuReuse).
inline double lu_correction_scale(double c, double c_lu) {
  return c == c_lu ? 1.0 : 2.0 / (1.0 + c / c_lu);
}
inline double newton_tolerance(double rtol) {
  return std::max(10 * std::numeric_limits<double>::epsilon() / rtol, kNewtonTolerance);
}

constexpr std::array<double, kMaxOrder + 1> kappa{0.0, -0.1850, -1.0 / 9.0, -0.0823, -0.0415, 0.0};

constexpr std::array<double, kMaxOrder + 1> gamma_coefficients() {
  std::array<double, kMaxOrder + 1> g{};
  for (int q = 1; q <= kMaxOrder; ++q) g[q] = g[q - 1] + 1.0 / q;
  return g;
}
constexpr std::array<double, kMaxOrder + 1> gamma = gamma_coefficients();

constexpr std::array<double, kMaxOrder + 1> alpha_coefficients() {
  std::array<double, kMaxOrder + 1> a{};
  for (int q = 0; q <= kMaxOrder; ++q) a[q] = (1.0 - kappa[q]) * gamma[q];
  return a;
}
constexpr std::array<double, kMaxOrder + 1> alpha = alpha_coefficients();

constexpr std::array<double, kMaxOrder + 1> error_constants() {
  std::array<double, kMaxOrder + 1> e{};
  for (int q = 0; q <= kMaxOrder; ++q) e[q] = kappa[q] * gamma[q] + 1.0 / (q + 1);
  return e;
}
constexpr std::array<double, kMaxOrder + 1> error_const = error_constants();

// The matrix RU with D'_j = sum_k RU[k][j] D_k (j, k <= q): the differences of the same
// interpolating polynomial at steps `factor` times the last (SciPy's change_D: R(q, factor)
// times R(q, 1), R[i][j] = prod_{k=1..i} (k - 1 - factor j) / k for i, j >= 1, R[0][j] = 1).
inline void rescale_matrix(int q, double factor,
                           std::array<std::array<double, kMaxOrder + 1>, kMaxOrder + 1>& ru) {
  std::array<std::array<double, kMaxOrder + 1>, kMaxOrder + 1> r{}, u{};
  for (int j = 0; j <= q; ++j) r[0][j] = u[0][j] = 1.0;
  for (int i = 1; i <= q; ++i)
    for (int j = 1; j <= q; ++j) {
      r[i][j] = r[i - 1][j] * (i - 1 - factor * j) / i;
      u[i][j] = u[i - 1][j] * (i - 1 - 1.0 * j) / i;
    }
  for (int i = 0; i <= q; ++i)
    for (int j = 0; j <= q; ++j) {
      double sum = 0.0;
      for (int k = 0; k <= q; ++k) sum += r[i][k] * u[k][j];
      ru[i][j] = sum;
    }
}

}  // namespace dualjit::solvers::bdf
