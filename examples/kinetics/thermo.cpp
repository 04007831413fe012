#include "examples/kinetics/thermo.h"

namespace dualjit::kinetics {
namespace {

// Coefficients of 1, T, T^2, T^3, T^4, 1/T and ln T.
using Basis = std::array<double, 7>;
using Nasa = std::array<double, 7>;  // a0..a6 of one range

Basis cp_basis(const Nasa& a) {
  return {a[0], a[1], a[2], a[3], a[4], 0.0, 0.0};
}
Basis h_basis(const Nasa& a) {
  return {a[0], a[1] / 2, a[2] / 3, a[3] / 4, a[4] / 5, a[5], 0.0};
}
Basis s_basis(const Nasa& a) {
  return {a[6], a[1], a[2] / 2, a[3] / 3, a[4] / 4, 0.0, a[0]};
}
// h/RT - s/R as one polynomial: half the terms of computing both and subtracting.
Basis g_basis(const Nasa& a) {
  return {a[0] - a[6], -a[1] / 2, -a[2] / 6, -a[3] / 12, -a[4] / 20, a[5], -a[0]};
}

Expr evaluate(const Nasa7& poly, Basis (*basis)(const Nasa&), const TemperatureTerms& t) {
  const Basis lo = basis(poly.low), hi = basis(poly.high);
  const Expr low_range = t.T <= poly.t_mid;
  const Expr terms[7] = {Expr(), t.T, t.T2, t.T3, t.T4, t.inv_T, t.log_T};
  // A constant where both ranges agree, else the range's constant picked by select (no
  // derivative: only the powers of T carry one).
  auto coefficient = [&](int i) {
    return lo[i] == hi[i] ? t.T.constant(lo[i]) : select(low_range, t.T.constant(lo[i]), hi[i]);
  };
  Expr sum = coefficient(0);
  for (int i = 1; i < 7; ++i) {
    if (lo[i] == 0.0 && hi[i] == 0.0) continue;
    sum = sum + coefficient(i) * terms[i];
  }
  return sum;
}

}  // namespace

TemperatureTerms::TemperatureTerms(const Expr& temperature)
    : T(temperature),
      log_T(log(temperature)),
      inv_T(1.0 / temperature),
      T2(temperature * temperature),
      T3(T2 * temperature),
      T4(T2 * T2) {}

Expr cp_over_R(const Nasa7& poly, const TemperatureTerms& t) {
  return evaluate(poly, cp_basis, t);
}
Expr h_over_RT(const Nasa7& poly, const TemperatureTerms& t) {
  return evaluate(poly, h_basis, t);
}
Expr s_over_R(const Nasa7& poly, const TemperatureTerms& t) {
  return evaluate(poly, s_basis, t);
}
Expr g_over_RT(const Nasa7& poly, const TemperatureTerms& t) {
  return evaluate(poly, g_basis, t);
}

}  // namespace dualjit::kinetics
