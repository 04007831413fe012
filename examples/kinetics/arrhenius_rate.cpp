#include "examples/kinetics/arrhenius_rate.h"

#include <cmath>

#include "examples/kinetics/units.h"

namespace dualjit::kinetics {

RateConstant arrhenius(const Arrhenius& rate, const TemperatureTerms& t) {
  if (rate.A == 0.0) return {t.T.constant(0.0), Expr()};
  Expr exponent = t.T.constant(std::log(std::abs(rate.A)));
  if (rate.b != 0.0) exponent = exponent + rate.b * t.log_T;
  if (rate.Ea != 0.0) exponent = exponent - (rate.Ea / kGasConstant) * t.inv_T;
  if (rate.A < 0) return {-exp(exponent), Expr()};
  return {exp(exponent), exponent};
}

RateConstant elementary_rate(const Reaction& reaction, const RateContext& context, size_t) {
  return arrhenius(reaction.rate, context.t);
}

RateConstant three_body_rate(const Reaction& reaction, const RateContext& context, size_t) {
  return arrhenius(reaction.rate, context.t);
}

}  // namespace dualjit::kinetics
