// Values parked in shared memory. A chemistry-sized element function keeps more values live
// than a thread has registers (GRI-3.0's tapes' launch: 316 at its widest, each species'
// concentration and thermochemistry read by reactions all through it), and ptxas spills the
// rest to local memory, whose traffic goes through L2 with the tape's own (2.8 KB of spill
// stores and 9.5 KB of loads a thread). Parking stores the longest-lived values once in a
// per-thread stretch of shared memory, volatile so that the compilers cannot forward them back
// into registers, and reads them where they are used: offline (ptxas, sm_90) 105 parked values
// cut that launch's spills to a third.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "jit/driver.h"

namespace dualjit::jit {

// A launch parks values when one of its chunks keeps more than this many live (max_live_values):
// ptxas then holds 255 registers a thread and spills.
inline constexpr int kParkAbove = 255;
// Values are parked, longest-lived first, until at most this many stay live at once.
inline constexpr int kParkedLive = 176;
// Nor is a value parked whose reads all come within this many statements of its definition.
inline constexpr int kMinParkedSpan = 32;

// The slots a thread parks in a launch whose chunks keep at most `max_live` values live: none
// at or below kParkAbove; else as many as the shared memory left beside the launch's own
// (launch.dynamic_shared_bytes) holds for each of its threads while the blocks that 255
// registers a thread allow, or min_blocks (__launch_bounds__'s) if more, still fit a
// multiprocessor, an odd count (consecutive threads' stretches then fall in different banks),
// at most 105. 0 where fewer than 16 would fit.
int park_slots(const LaunchPolicy& launch, int min_blocks, int max_live);

// The slot of each value of one function (-1: not parked), from each value's interval
// [definition, last read] in statement positions: longest first, while more than
// kParkedLive are live somewhere along it and `slots` slots hold the parked ones there (a slot
// is reused once its value's last read has passed).
std::vector<int> parked_slots(const std::vector<std::pair<int, int>>& intervals, int slots);

// The target texts that give a function its parking, `dj_parked* dj_parking()`, the calling
// thread's `slots` slots: in the CUDA source, after the launch's own dynamic shared memory;
// in the host source, a thread-local array. Empty for 0 slots.
std::string cuda_parking(const LaunchPolicy& launch, int slots);
std::string host_parking(int slots);

}  // namespace dualjit::jit
