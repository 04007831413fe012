// The constructors of the strategy units, for the list in strategies.cpp only.
#pragma once

#include <memory>

#include "backends/assembly/strategies/fused_strategy.h"

namespace dualjit::assembly::units {

std::shared_ptr<const FusedStrategy> scatter_atomic(FusedSpec spec);
std::shared_ptr<const FusedStrategy> staged_scatter(FusedSpec spec);
std::shared_ptr<const FusedStrategy> gather_by_column(FusedSpec spec);
std::shared_ptr<const FusedStrategy> staged_gather(FusedSpec spec);
std::shared_ptr<const FusedStrategy> warp_specialized_gather(FusedSpec spec);

}  // namespace dualjit::assembly::units
