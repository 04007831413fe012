// NASA7 standard-state thermodynamics of each species as DSL expressions of T: cp/R, h/RT, s/R
// and g/RT = h/RT - s/R at the reference pressure. Each is one polynomial in the powers of T that
// every species shares; its coefficients (combined in plain double, per quantity) switch between
// the two ranges at the species' own Tmid, low range for T <= Tmid as Cantera's NasaPoly2.
#pragma once

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

}  // namespace dualjit::kinetics
