// Arrhenius rate constants k = A T^b exp(-Ea / (R T)), functions of T alone, with ln k = ln A +
// b ln T - Ea/(R T) at hand for the reverse rate and the falloff blend (none for a negative A,
// which the reaction may allow). Where Ea = 0 and b is a small integer, k is A times a product of
// T or 1/T: no exp.
#pragma once

#include "examples/kinetics/rate_constants.h"

namespace dualjit::kinetics {

// shared_exponentials: k = A exp(b ln T - Ea/(R T)), or A T^b exp(-Ea/(R T)) for a small
// integer b, whose exp reactions with the same Ea (and b) share: fewer special functions. Else
// k = exp(ln k) (-exp(ln|k|) for a negative A): one exp, whose derivative is k times the
// exponent's, where the product would take more operations through the product rule.
RateConstant arrhenius(const Arrhenius& rate, const TemperatureTerms& t,
                       bool shared_exponentials = false);

// ln|A| + b ln T - Ea/(R T): ln k where A > 0, built without the exp.
Expr arrhenius_exponent(const Arrhenius& rate, const TemperatureTerms& t);

// Builders for ReactionType::elementary and three_body (the latter's [M] is applied by the rate
// of progress, not here).
RateConstant elementary_rate(const Reaction& reaction, const RateContext& context, size_t index);
RateConstant three_body_rate(const Reaction& reaction, const RateContext& context, size_t index);

}  // namespace dualjit::kinetics
