// Arrhenius rate constants k = A T^b exp(-Ea / (R T)), written as exp(ln A + b ln T - Ea/(R T))
// so that k is a function of T alone and ln k is at hand for the reverse rate and the falloff
// blend; a negative A (allowed where the reaction says so) gives -exp(ln|A| + ...) and no ln k.
// Where Ea = 0 and b is a small integer, k is A times a product of T or 1/T: no exp.
#pragma once

#include "examples/kinetics/rate_constants.h"

namespace dualjit::kinetics {

RateConstant arrhenius(const Arrhenius& rate, const TemperatureTerms& t);

// ln|A| + b ln T - Ea/(R T): ln k where A > 0, built without the exp.
Expr arrhenius_exponent(const Arrhenius& rate, const TemperatureTerms& t);

// Builders for ReactionType::elementary and three_body (the latter's [M] is applied by the rate
// of progress, not here).
RateConstant elementary_rate(const Reaction& reaction, const RateContext& context, size_t index);
RateConstant three_body_rate(const Reaction& reaction, const RateContext& context, size_t index);

}  // namespace dualjit::kinetics
