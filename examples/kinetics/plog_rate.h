// Pressure-dependent Arrhenius (PLOG) rate constants, as Cantera 3.2's PlogRate: ln k is
// interpolated linearly in ln p between the two tabulated pressures around p and held at the
// first or last pressure's value outside the table; the lines given at one pressure are summed
// (ln(1e-300 + sum k_i)), a single line is used as ln k directly.
#pragma once

#include "examples/kinetics/rate_constants.h"

namespace dualjit::kinetics {

// Builder for ReactionType::plog. Since p may depend on the state, the interval is picked in the
// graph (a chain of selects on ln p). Throws MechanismError naming the reaction when the rate
// at a tabulated pressure is not positive at 300, 500, 1000, 2000, 5000 or 10000 K (Cantera's
// validation), which also covers a single line with a negative A.
RateConstant plog_rate(const Reaction& reaction, const RateContext& context, size_t index);

}  // namespace dualjit::kinetics
