// Pressure-dependent rate constants that blend a low- and a high-pressure Arrhenius limit
// through the reduced pressure Pr = k0 [M] / k_inf (Cantera 3.2's FalloffRate):
//   falloff:               k = k_inf  Pr / (1 + Pr) F(T, Pr)
//   chemically activated:  k = k0        / (1 + Pr) F(T, Pr)
// with the blending function F of Lindemann (1), Troe or SRI, and Cantera's guards against
// log10(0) (Fcent and Pr clamped to 1e-300 from below). Where both limits have A > 0 the
// builder works in logs: k0 F and Pr take one exp each (falloff_rate.cpp).
#pragma once

#include "examples/kinetics/rate_constants.h"

namespace dualjit::kinetics {

// Builder for ReactionType::falloff and chemically_activated; throws MechanismError naming the
// reaction when the two limits' pre-exponential factors differ in sign (Cantera refuses those).
RateConstant falloff_rate(const Reaction& reaction, const RateContext& context, size_t index);

}  // namespace dualjit::kinetics
