#include "examples/kinetics/arrhenius_rate.h"

#include <cmath>

#include "examples/kinetics/units.h"

namespace dualjit::kinetics {
namespace {

// T^b for a small integer b as products of T or 1/T: no exp where Ea = 0.
constexpr double kMaxIntegerPower = 4;

Expr integer_power(const Expr& base, int n) {
  Expr p = base;
  for (int i = 1; i < n; ++i) p = p * base;
  return p;
}

}  // namespace

Expr arrhenius_exponent(const Arrhenius& rate, const TemperatureTerms& t) {
  Expr exponent = t.T.constant(std::log(std::abs(rate.A)));
  if (rate.b != 0.0) exponent = exponent + rate.b * t.log_T;
  if (rate.Ea != 0.0) exponent = exponent - (rate.Ea / kGasConstant) * t.inv_T;
  return exponent;
}

RateConstant arrhenius(const Arrhenius& rate, const TemperatureTerms& t) {
  if (rate.A == 0.0) return {t.T.constant(0.0), Expr()};
  const Expr exponent = arrhenius_exponent(rate, t);
  const double sign = rate.A < 0 ? -1.0 : 1.0;
  Expr k;
  if (rate.Ea == 0.0 && rate.b != 0.0 && rate.b == std::nearbyint(rate.b) &&
      std::abs(rate.b) <= kMaxIntegerPower)
    k = (sign * std::abs(rate.A)) *
        integer_power(rate.b > 0 ? t.T : t.inv_T, int(std::abs(rate.b)));
  else
    k = rate.A < 0 ? -exp(exponent) : exp(exponent);
  return {k, rate.A < 0 ? Expr() : exponent};
}

RateConstant elementary_rate(const Reaction& reaction, const RateContext& context, size_t) {
  return arrhenius(reaction.rate, context.t);
}

RateConstant three_body_rate(const Reaction& reaction, const RateContext& context, size_t) {
  return arrhenius(reaction.rate, context.t);
}

}  // namespace dualjit::kinetics
