// The constructors of the strategy units, for the lists in strategies.cpp and
// in_place_strategy.cpp only.
#pragma once

#include <memory>

#include "backends/assembly/strategies/fused_strategy.h"
#include "backends/assembly/strategies/in_place_strategy.h"

namespace dualjit::assembly::units {

std::shared_ptr<const FusedStrategy> scatter_atomic(FusedSpec spec);
std::shared_ptr<const FusedStrategy> staged_scatter(FusedSpec spec);
std::shared_ptr<const FusedStrategy> gather_by_column(FusedSpec spec);
std::shared_ptr<const FusedStrategy> staged_gather(FusedSpec spec);
std::shared_ptr<const FusedStrategy> warp_specialized_gather(FusedSpec spec);

// The in-place element strategies (in_place_strategy.h).
std::shared_ptr<const InPlaceStrategy> element_scatter();
std::shared_ptr<const InPlaceStrategy> node_gather();
std::shared_ptr<const InPlaceStrategy> staged_node_gather();

}  // namespace dualjit::assembly::units
