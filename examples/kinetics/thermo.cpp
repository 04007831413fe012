#include "examples/kinetics/thermo.h"

#include <map>
#include <utility>

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

// sum_i c_i terms_i with c_i the low range's coefficient where T <= t_mid, else the high's.
Expr evaluate(const Basis& lo, const Basis& hi, double t_mid, const TemperatureTerms& t) {
  const Expr low_range = t.T <= t_mid;
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

Expr evaluate(const Nasa7& poly, Basis (*basis)(const Nasa&), const TemperatureTerms& t) {
  return evaluate(basis(poly.low), basis(poly.high), poly.t_mid, t);
}

// sum_k nu_k f_k: the species' bases scaled and added per Tmid, one polynomial per distinct Tmid.
Expr evaluate_change(const Mechanism& m, const std::map<size_t, double>& nu,
                     Basis (*basis)(const Nasa&), const TemperatureTerms& t) {
  std::map<double, std::pair<Basis, Basis>> by_t_mid;  // Tmid -> summed low and high bases
  for (const auto& [k, n] : nu) {
    if (n == 0.0) continue;
    const Nasa7& poly = m.species.at(k).thermo;
    auto& [lo, hi] = by_t_mid[poly.t_mid];
    const Basis l = basis(poly.low), h = basis(poly.high);
    for (int i = 0; i < 7; ++i) {
      lo[i] += n * l[i];
      hi[i] += n * h[i];
    }
  }
  Expr sum;
  for (const auto& [t_mid, bases] : by_t_mid) {
    const Expr part = evaluate(bases.first, bases.second, t_mid, t);
    sum = sum.valid() ? sum + part : part;
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
Expr g_over_RT_change(const Mechanism& m, const std::map<size_t, double>& nu,
                      const TemperatureTerms& t) {
  return evaluate_change(m, nu, g_basis, t);
}

}  // namespace dualjit::kinetics
