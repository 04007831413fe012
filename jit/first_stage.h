// Staged first derivatives (FirstStores::Staged, jit/driver.h). A chunk in row groups stores its
// rows' entries of an element's Jacobian, one contiguous range of the element's block; each lane
// of a warp puts its element's entries of that range in the warp's stage in shared memory, and
// when the chunk ends the warp writes the 32 elements' ranges one after another, its lanes on
// consecutive entries: element-major blocks, as the solvers read them, written in whole lines,
// with no second pass over them and no second buffer.
//
// The stage holds entry k of the warp's lane i at k * 32 + (i ^ (k % 32)): the lanes storing
// one entry hit 32 different banks' words, and so do the warp's reads of consecutive entries of
// one element when it writes them out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "jit/derivative_plan.h"
#include "jit/jacobian_pattern.h"

namespace dualjit::jit {

// Entries [lo, lo + len) of an element's first-derivative block.
struct StageRange {
  int64_t lo = 0;
  int len = 0;
  bool operator==(const StageRange&) const = default;
};

// Each chunk's first-derivative entries in `mode`'s element-major order (sparse: the pattern's
// order), or nullopt unless the plan is a Jacobian's and every chunk's entries are one range
// (a row group with every column; a chunk of some columns is not).
std::optional<std::vector<StageRange>> stage_ranges(const DerivativePlan& plan,
                                                    std::span<const Chunk> chunks,
                                                    const JacobianPattern* sparse);

// Shared memory a block of `block_threads` needs for stages of `entries`.
size_t stage_bytes(int block_threads, int entries);

// The most a warp's stage may take: eight warps' stages, what 255 registers a thread leave
// room for, fit in an sm_90 multiprocessor's 228 KB with the 1 KB each block reserves, in
// blocks of 1, 2 or 4 warps; so staging costs such kernels no occupancy. (Larger stages held
// GRI-3.0's Jacobian in rows of 3 and 4 to four warps a multiprocessor, 16% slower than tiles
// reordered by a second pass; bench/RESULTS.md.) 27 KB: a row group of two 54-entry rows.
inline constexpr size_t kMaxStageBytesPerWarp = 27 * 1024;

}  // namespace dualjit::jit
