#include "examples/kinetics/arrhenius_rate.h"

#include <cmath>

#include "examples/kinetics/units.h"

namespace dualjit::kinetics {
namespace {

// T^b for a small integer b, as products of T or 1/T.
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

RateConstant arrhenius(const Arrhenius& rate, const TemperatureTerms& t, bool shared_exponentials) {
  if (rate.A == 0.0) return {t.T.constant(0.0), Expr()};
  const Expr exponent = arrhenius_exponent(rate, t);
  const Expr log_k = rate.A < 0 ? Expr() : exponent;
  const bool integer_b = rate.b == std::nearbyint(rate.b) && std::abs(rate.b) <= kMaxIntegerPower;
  const auto times_T_power = [&](const Expr& k) {
    if (!integer_b || rate.b == 0.0) return k;
    return k * integer_power(rate.b > 0 ? t.T : t.inv_T, int(std::abs(rate.b)));
  };
  if (rate.Ea == 0.0 && integer_b) return {times_T_power(t.T.constant(rate.A)), log_k};
  if (!shared_exponentials) return {rate.A < 0 ? -exp(exponent) : exp(exponent), log_k};
  // The exp without ln A (and without b ln T for a small integer b): equal for reactions with
  // the same Ea (and b), the graph keeps one.
  Expr shared;
  if (!integer_b) shared = rate.b * t.log_T;
  if (rate.Ea != 0.0) {
    const Expr activation = (-rate.Ea / kGasConstant) * t.inv_T;
    shared = shared.valid() ? shared + activation : activation;
  }
  return {times_T_power(rate.A * exp(shared)), log_k};
}

RateConstant elementary_rate(const Reaction& reaction, const RateContext& context, size_t) {
  return arrhenius(reaction.rate, context.t, context.shared_exponentials);
}

RateConstant three_body_rate(const Reaction& reaction, const RateContext& context, size_t) {
  return arrhenius(reaction.rate, context.t, context.shared_exponentials);
}

}  // namespace dualjit::kinetics
