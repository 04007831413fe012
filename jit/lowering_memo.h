// The chunk passes' results kept in the disk cache, so that a warm start does not lower again.
// The compiled image's cache key hashes the emitted source, so a process that finds its kernel
// compiled on disk still expanded, scheduled and emitted every chunk to learn the key: 41 ms of
// the 70-81 ms warm start of GRI-3.0's (T, Y) Jacobian on an H200's host. Here the chunks' element
// functions and counts are stored under a key of everything those passes read: the kernel's
// canonical hash (every node, constant and slot), the plan as the driver adapted it, the
// options, the symbols, and the identity of the binary that holds this code (its path, size
// and modification time), so that a rebuilt library never reads what an older one wrote.
// lower() then joins the stored texts exactly as it joins fresh ones: the same bytes.
//
// Off (no key) while IR dumps are on, which need the passes to run, and without a disk cache
// (jit/kernel_cache.h); a read-only cache is read. DUALJIT_LOWERING_MEMO=0 turns it off.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "jit/lowering.h"

namespace dualjit::jit {

// What lower() keeps of one chunk after its passes.
struct ChunkSummary {
  OpCounts ops;
  int live = 0;
  size_t statements = 0;
};

// Every chunk of a kernel (or of its launches, in order): its summary and element function.
struct LoweredChunks {
  std::vector<ChunkSummary> summaries;
  std::vector<std::string> texts;
};

// The memo key (64 hex digits) of `kernel` lowered under `options` (schedule resolved) with
// `plan` (adapted by the driver) as the kernel `symbol`, whole or in launches (`split`, as
// lower_launches splits it), or "" when the memo is off.
std::string lowering_memo_key(const Kernel& kernel, const LoweringOptions& options,
                              const DerivativePlan& plan, const std::string& symbol, bool split);

// The stored chunks under `key`, or nullopt (missing, damaged or unreadable: lower again).
std::optional<LoweredChunks> load_lowered_chunks(const std::string& key);
// Listed by `dualjit cache list` under the kernel's name and symbol, target "lowering".
void store_lowered_chunks(const std::string& key, const std::string& kernel_name,
                          const std::string& symbol, const LoweredChunks& chunks);

// The identity of the binary (executable or shared library) that holds the lowering passes:
// "path size mtime", or "" when it cannot be read (then the memo is off).
const std::string& lowering_code_identity();

}  // namespace dualjit::jit
