// One launch of a lowered kernel: its argument values (jit/kernel_args.h) checked against the
// kernel and packed into the words of its argument block. Pointers are host pointers for the
// CPU backend and device pointers for the CUDA backend.
#pragma once

#include <cstdint>
#include <vector>

#include "jit/kernel_args.h"
#include "jit/lowering.h"

namespace dualjit::jit {

// A launch's argument block and its number of work items (the value of the kernel's
// LaunchPolicy::items), checked and packed once: a launch repeated with the same values can
// keep it.
struct PackedLaunch {
  std::vector<uint64_t> words;
  int64_t items = 0;
};

// Throws std::invalid_argument naming the kernel and the missing, mis-sized or unknown piece.
PackedLaunch pack_launch(const LoweredKernel& kernel, const ArgValues& values);

}  // namespace dualjit::jit
