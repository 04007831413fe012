// From a Kernel to compilable source, pass by pass:
//   plan_derivatives -> expand_derivatives (per chunk) -> schedule -> count_ops
//   -> emit_element_function (per chunk) -> driver (jit/driver.h) -> CUDA kernel / host loop.
// The chunks go through the per-chunk passes on parallel threads (jit/parallel_for.h), or
// come back from the disk cache where the same kernel was lowered before (jit/lowering_memo.h).
// Setting LoweringOptions::dump_dir (or $DUALJIT_DUMP_DIR) writes the IR after each pass.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "jit/derivative_plan.h"
#include "jit/driver.h"
#include "jit/jacobian_pattern.h"
#include "jit/op_counts.h"
#include "jit/schedule.h"
#include "jit/tape_pattern.h"

namespace dualjit::jit {

// Bumped whenever emitted code changes meaning or ABI: part of every cache key.
inline constexpr const char* kCodegenVersion = "dualjit-codegen-16";

// Size policy for big graphs (detailed chemistry). Measured on a 6,535-node graph (Jacobian,
// W = 4, 150k statements): NVRTC 87 s whole, 53 s in pieces of 1000, 3.8 s in pieces of 1000
// with --Ofast-compile=max (see bench/RESULTS.md).
// The Roe flux Jacobian, at most 2,043 statements a chunk and 3,469 a kernel, stays whole and
// fully optimised.
inline constexpr size_t kLargeChunk = 3000;
inline constexpr size_t kSplitPiece = 1000;
inline constexpr size_t kLargeKernel = 6000;  // statements: compile with fast-compile
// Under CompileEffort::Full a chunk is split only above this many statements, into pieces of
// as many: GRI-3.0's rates (one chunk) and (T, Y) Jacobian groups stay whole, whose pieces of
// kSplitPiece cost 12% of the Jacobian's run time in scratch traffic (bench/RESULTS.md).
inline constexpr size_t kFullEffortPiece = 16000;
// A chunk of more than this many statements calls its transcendental functions out of line
// (emit_element.h outline_specials): GRI-3.0's rates, 711 exp and log inlined into 44k
// instructions (687 KB of code for every warp), stalled on instruction fetch two cycles in
// three and ran 1.7x faster with one copy of each (bench/RESULTS.md). The Roe flux's chunks
// (at most 2,043 statements) stay inline.
// DUALJIT_INLINE_SPECIALS=1 keeps them inline everywhere, for comparisons.
inline constexpr size_t kOutlineSpecials = kLargeChunk;
// Whether a chunk of `statements` statements calls its specials out of line.
bool outlines_specials(size_t statements);
// Chunks that read their fp64 constants from tables in constant memory (jit/constant_tables.h)
// share this many bytes a module: its constant bank holds 64 KB.
inline constexpr size_t kConstantTableBytes = 48 * 1024;

// How hard NVRTC works on a kernel. Auto: kernels of more than kLargeKernel statements compile
// with --Ofast-compile=max (ptxas -O0), seconds instead of minutes for chemistry-sized graphs;
// Full: always -O3, for kernels that run long enough to repay minutes of compile (GRI-3.0 on
// an H100, 1e5 cells: rates 6.9 -> 1.2 ms, (T, Y) Jacobian in row groups 43 -> 17 ms;
// bench/RESULTS.md). The choice is part of the cache key.
enum class CompileEffort { Auto, Full };

// A contiguous range [first, last) of a plan's chunks; last < 0: every chunk.
struct ChunkRange {
  int first = 0, last = -1;
  bool all() const { return last < 0; }
};

struct LoweringOptions {
  Mode mode = Mode::Jacobian;
  int width = 0;  // W; <= 0: all directions in one chunk
  // Outputs per row group (jit/derivative_plan.h); 0: every chunk computes every output.
  // Value and Jacobian modes under the element-local driver.
  int rows = 0;
  LaunchLayout layout;
  bool prune = true;  // false: fixed-width duals, the baseline for op counts
  // Unset: least-live for graphs of more than kLargeChunk nodes, else default_schedule(W).
  std::optional<ScheduleKind> schedule;
  // Element vertex each active input slot is gathered from; empty: slot s <- vertex s.
  std::vector<int> input_vertex;
  std::string dump_dir;  // empty: $DUALJIT_DUMP_DIR if set
  // Element functions longer than this many statements are split into non-inlined pieces
  // (jit/emit_element.h). 0 means automatic: a chunk of more than kLargeChunk statements is
  // split into pieces of kSplitPiece, smaller ones (the Roe flux) stay whole; under
  // CompileEffort::Full, pieces of kFullEffortPiece above that size.
  size_t max_statements_per_function = 0;
  // Where results go: unset, the element-local driver (jit/element_driver.h); else an
  // assembly strategy (backends/assembly/strategies/).
  std::shared_ptr<const Driver> driver;
  // Derivative arithmetic in fp32, the primal in fp64 (jit/emit_element.h): derivatives
  // accurate to fp32, not fp64. Off by default; never chosen by the tuner on its own.
  bool single_tangents = false;
  // Jacobian: store only the entries that are not structural zeros (jit/jacobian_pattern.h),
  // in LoweredKernel::first_pattern's order: a rate law's dw/dC, whose rows touch a few
  // species each, stores nnz values per element, not n_out x n_in.
  bool sparse_jacobian = false;
  CompileEffort compile_effort = CompileEffort::Auto;
  // Launches of a kernel in row groups (lower_launches): 0, automatic: up to kMaxLaunches for
  // kernels of more than kLargeKernel statements, else one; with tapes at full effort, the
  // tapes' launch and as few as keep every other launch no larger than it; N: at most N (one
  // per chunk at most).
  int launches = 0;
  // The chunks this kernel computes (element-local driver): one launch of a split kernel.
  ChunkRange chunks;
  // Element-local driver: how first derivatives are stored (jit/driver.h). Staged where
  // every chunk's entries are one range and a warp's stage fits (jit/first_stage.h), else
  // tiled: LoweredKernel::options says which. Tiled blocks hold whole tiles; dj_untile
  // (backends/assembly/device_element_assembly.h) gives cell-major or component-major blocks.
  FirstStores first_stores = FirstStores::Direct;
  // Where the params are read (jit/driver.h): element-major unless tiled; tiled, `at` holds a
  // slot for each of the kernel's params.
  TiledParams tiled_params;
  // Element-local driver: values tiled as FirstStores::Tiled's first derivatives, [tile][output]
  // [element of the tile], whole tiles, each warp's store of an output one line (values that a
  // later launch reads, not the caller: the tape columns' rest kernel's).
  bool tiled_values = false;
  // Further kernels whose chunk functions the driver calls too (a node-owning kernel that also
  // evaluates the single-vertex terms of its nodes): each lowered whole, in the same mode, under
  // `<symbol>_n<i>`, its DriverSpec in DriverSpec::companions. Not with row groups.
  std::vector<std::shared_ptr<const Kernel>> companions;
};

// ptxas runs on one thread per program and takes minutes for a big kernel in -O3, so a kernel
// in row groups is split into launches that compile in parallel (GRI-3.0's (T, Y) Jacobian in
// rows of 2, full effort, on an H100's 16-core host: 139 s whole, 21 s as 16 launches, which
// run 3% slower; bench/RESULTS.md). Each launch recomputes what its rows need from the inputs,
// as the groups of one kernel do. (Units linked by nvJitLink compile as fast but run 20%
// slower: calls across units follow the ABI and spill callee-saved registers.)
inline constexpr int kMaxLaunches = 16;

struct LoweredKernel {
  std::string kernel_name;
  std::string symbol;          // base name of the emitted entry points
  std::string label;           // "kernel '<name>' (<symbol>)", for error messages
  std::string cuda_entry;      // extern "C" __global__ symbol
  std::string host_entry;      // extern "C" host loop symbol
  std::string element_source;  // target-neutral element functions and driver
  std::string cuda_source;     // complete NVRTC translation unit
  std::string host_source;     // complete host translation unit ("" if the driver has none)
  // SHA-256 (hex) of each source, computed on first use and shared with the kernel's copies:
  // cache lookups never rehash the text, and a kernel run on one target hashes only its
  // source. The sources are not changed once lowered.
  const std::string& cuda_source_sha256() const;
  const std::string& host_source_sha256() const;
  DerivativePlan plan;
  LoweringOptions options;
  ArgTable args;                         // the argument block, from the driver (jit/kernel_args.h)
  LaunchPolicy launch;                   // how the CUDA entry is launched
  CompileFlags compile;                  // what the driver needs from the compiler
  std::vector<int> input_vertex;         // resolved binding
  std::vector<int> slot_size;            // per active input slot
  std::vector<OpCounts> chunk_ops;       // per chunk
  std::vector<int> chunk_live;           // per chunk: max_live_values of its schedule
  std::vector<size_t> chunk_statements;  // per chunk: emitted statements
  OpCounts ops;                          // total per element
  int max_live = 0;                      // largest over chunks
  size_t statements = 0;                 // emitted statements over all chunks
  size_t first_size = 0, second_size = 0;
  JacobianPattern first_pattern;  // sparse_jacobian: the entries first stores (else empty)
  // Slots per element of the kernel's tape (jit/tape_pattern.h): > 0 when the kernel keeps
  // tapes, and every launch of it then takes a tape buffer (ElementLaunch::tape).
  int64_t tape_size = 0;
  // Whether this launch computes the tapes (the plan's tape chunk): it runs before the
  // kernel's other launches, which read them.
  bool writes_tape = false;
  std::string report() const;    // op counts, chunks, liveness
  const Driver& driver() const;  // options.driver, or the element-local driver

  struct SourceDigests {
    std::once_flag cuda_once, host_once;
    std::string cuda, host;
  };
  std::shared_ptr<SourceDigests> digests = std::make_shared<SourceDigests>();
};

LoweredKernel lower(const Kernel& kernel, const LoweringOptions& options);

// The kernel as launches of contiguous chunk ranges with about equal statement counts, in
// order (LoweringOptions::launches), each writing its rows to the common outputs; one kernel
// when it is not split. Together they store what lower(kernel, options) stores; each is
// lower(kernel, options) over its range, to the byte, with every chunk expanded once. IR
// dumps: the chunks' under the whole kernel's symbol, each launch's sources under its own.
std::vector<LoweredKernel> lower_launches(const Kernel& kernel, const LoweringOptions& options);

}  // namespace dualjit::jit
