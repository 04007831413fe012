// NASA7 standard-state thermodynamics of each species as DSL expressions of T: cp/R, h/RT, s/R
// and g/RT = h/RT - s/R at the reference pressure. Each is one polynomial in the powers of T that
// every species shares; its coefficients (combined in plain double, per quantity) switch between
// the two ranges at the species' own Tmid, low range for T <= Tmid as Cantera's NasaPoly2.
#pragma once

#include <map>

#include "dsl/expr.h"
#include "examples/kinetics/mechanism.h"

namespace dualjit::kinetics {

// T and the functions of it that the polynomials and rate constants share, built once per graph.
struct TemperatureTerms {
  Expr T, log_T, inv_T, T2, T3, T4;
  explicit TemperatureTerms(const Expr& temperature);
};

Expr cp_over_R(const Nasa7& poly, const TemperatureTerms& t);
Expr h_over_RT(const Nasa7& poly, const TemperatureTerms& t);
Expr s_over_R(const Nasa7& poly, const TemperatureTerms& t);
Expr g_over_RT(const Nasa7& poly, const TemperatureTerms& t);

// A reaction's change sum_k nu_k g_k/RT, species index -> nu, as one polynomial per
// distinct Tmid among its species, their coefficients combined in plain double: the reaction
// then reads only the powers of T, and a launch over many reactions holds no species' value
// between them. Empty (invalid) when every nu is zero.
Expr g_over_RT_change(const Mechanism& m, const std::map<size_t, double>& nu,
                      const TemperatureTerms& t);

}  // namespace dualjit::kinetics
