// Chebyshev rate constants, as Cantera 3.2's ChebyshevRate:
//   log10 k = sum_ij a_ij T_i(T~) T_j(P~),
//   T~ = (2/T - 1/Tmin - 1/Tmax) / (1/Tmax - 1/Tmin),
//   P~ = (2 log10 p - log10 Pmin - log10 Pmax) / (log10 Pmax - log10 Pmin),
// with T_n the Chebyshev polynomials of the first kind. Like Cantera, no clamping outside the
// fitted ranges.
#pragma once

#include "examples/kinetics/rate_constants.h"

namespace dualjit::kinetics {

// Builder for ReactionType::chebyshev; throws MechanismError naming the reaction when the
// coefficient matrix is empty.
RateConstant chebyshev_rate(const Reaction& reaction, const RateContext& context, size_t index);

}  // namespace dualjit::kinetics
