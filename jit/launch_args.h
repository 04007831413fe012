// One launch of a lowered kernel: its argument values (jit/kernel_args.h) checked against the
// kernel and packed into the words of its argument block. Pointers are host pointers for the
// CPU backend and device pointers for the CUDA backend.
#pragma once

#include <cstdint>
#include <vector>

#include "jit/kernel_args.h"
#include "jit/lowering.h"

namespace dualjit::jit {

// The number of work items of a launch: the value of the kernel's LaunchPolicy::items.
int64_t launch_items(const LoweredKernel& kernel, const ArgValues& values);

// Throws std::invalid_argument naming the kernel and the missing, mis-sized or unknown piece.
std::vector<uint64_t> pack_launch(const LoweredKernel& kernel, const ArgValues& values);

}  // namespace dualjit::jit
