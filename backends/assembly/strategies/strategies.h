// The assembly strategies of the FUN3D family (fused_strategy.h), by name: the one list. A
// new strategy is a new file of this folder and one line in strategies.cpp.
//   scatter-atomic           each element adds its rows and blocks with atomics (CUDA, host)
//   staged-scatter           the same, staged in shared memory and written out coalesced (CUDA)
//   gather-by-column         one thread per node owns its rows and its column's off-diagonal
//                            blocks: no atomics, deterministic (CUDA, host)
//   staged-gather            blocks own node ranges and run their elements a tile at a time
//                            (CUDA)
//   warp-specialized-gather  the staged gather with a compute and a write-out warpgroup per
//                            block (CUDA, sm_90)
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/assembly/strategies/fused_strategy.h"

namespace dualjit::assembly {

// Throws std::invalid_argument listing the names for an unknown one.
std::shared_ptr<const FusedStrategy> make_fused_strategy(std::string_view name, FusedSpec spec);
const std::vector<std::string>& fused_strategy_names();

}  // namespace dualjit::assembly
