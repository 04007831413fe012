// The coefficients of a Rosenbrock method in the form that needs no Jacobian-vector products
// (Hairer & Wanner, Solving ODEs II, section IV.7), for autonomous systems y' = f(y):
//   (I / (h gamma) - J) k_i = f(y + sum_{j<i} a_ij k_j) + sum_{j<i} (c_ij / h) k_j
//   y_new = y + sum_i m_i k_i,   error estimate = sum_i e_i k_i.
#pragma once

#include <array>
#include <string>

namespace dualjit::solvers {

struct RosenbrockMethod {
  static constexpr int kMaxStages = 6;
  std::string name;
  int stages = 0;
  double gamma = 0;
  // Strictly lower triangular: a[i][j], c[i][j] for j < i.
  std::array<std::array<double, kMaxStages>, kMaxStages> a{}, c{};
  std::array<double, kMaxStages> m{}, e{};
  // The order of the embedded estimate plus one: the step size scales with err^(-1/this).
  int error_order = 0;
  // Stage i evaluates f at a new point (else it reuses stage i - 1's value).
  std::array<bool, kMaxStages> new_f{};
};

// RODAS4: stiffly accurate, L-stable, order 4 with an embedded order 3, six stages (Hairer and
// Wanner's coefficients). Stiffly accurate methods damp the fast modes of chemistry exactly.
const RosenbrockMethod& rodas4();

}  // namespace dualjit::solvers
