// From a Kernel to compilable source, pass by pass:
//   plan_derivatives -> expand_derivatives (per chunk) -> schedule -> count_ops
//   -> emit_element_function (per chunk) -> element driver -> CUDA kernel / host loop.
// Setting LoweringOptions::dump_dir (or $DUALJIT_DUMP_DIR) writes the IR after each pass.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "jit/assembly_spec.h"
#include "jit/derivative_plan.h"
#include "jit/op_counts.h"
#include "jit/schedule.h"

namespace dualjit::jit {

// Bumped whenever emitted code changes meaning or ABI: part of every cache key.
inline constexpr const char* kCodegenVersion = "dualjit-codegen-9";

// Size policy for big graphs (detailed chemistry). Measured on a 6,535-node graph (Jacobian,
// W = 4, 150k statements): NVRTC 87 s whole, 53 s in pieces of 1000, 3.8 s in pieces of 1000
// with --Ofast-compile=max (see bench/RESULTS.md).
// The Roe flux Jacobian, at most 2,043 statements a chunk and 3,469 a kernel, stays whole and
// fully optimised.
inline constexpr size_t kLargeChunk = 3000;
inline constexpr size_t kSplitPiece = 1000;
inline constexpr size_t kLargeKernel = 6000;  // statements: compile with fast-compile

// How threads map to elements on the GPU: T threads per element (each runs chunks t, t+T,
// ...; the T threads of an element sit in different warps so that every warp runs one
// chunk's code: no divergence), B elements per block (a multiple of 32).
struct LaunchLayout {
  int threads_per_element = 1;
  int elements_per_block = 128;
  // Blocks per multiprocessor ptxas must fit (__launch_bounds__'s second argument): caps
  // registers per thread to trade spills for occupancy; 0 leaves ptxas free.
  int min_blocks = 0;
  int block_threads() const { return threads_per_element * elements_per_block; }
  std::string describe() const;
};

struct LoweringOptions {
  Mode mode = Mode::Jacobian;
  int width = 0;  // W; <= 0: all directions in one chunk
  LaunchLayout layout;
  bool prune = true;  // false: fixed-width duals, the baseline for op counts
  // Unset: default_schedule(W).
  std::optional<ScheduleKind> schedule;
  // Element vertex each active input slot is gathered from; empty: slot s <- vertex s.
  std::vector<int> input_vertex;
  std::string dump_dir;  // empty: $DUALJIT_DUMP_DIR if set
  // Element functions longer than this many statements are split into non-inlined pieces
  // (jit/emit_element.h). 0 means automatic: a chunk of more than kLargeChunk statements is
  // split into pieces of kSplitPiece; smaller ones (the Roe flux) stay whole.
  size_t max_statements_per_function = 0;
  // Assemble in place instead of writing element-local results (jit/assembly_spec.h).
  std::optional<AssemblySpec> assembly;
  // Derivative arithmetic in fp32, the primal in fp64 (jit/emit_element.h): derivatives
  // accurate to fp32, not fp64. Off by default; never chosen by the tuner on its own.
  bool single_tangents = false;
};

// The argument block shared by the CUDA kernel (passed by value) and the host loop (by
// pointer): 8-byte fields only, so both sides agree on the layout without padding rules.
//   int64 n_elements; const int32* conn; int64 vertices_per_element;
//   const double* field[n_slots]; const double* direction[n_slots];
//   const double* params; double* values; double* first; double* second;
//   assembly: double* residual; double* diag; void* off; const int64* slots;
//             const int64* inc_ptr; const int64* inc_element; const int8* inc_vertex;
//             int64 n_nodes;
//             const int64* side_ptr; const int32* side_element; const int32* side_slot;
//             const int64* node_blocks; int64 n_node_blocks;
//   double uniform[max(n_uniforms, 1)];
struct ArgsLayout {
  int n_slots = 0;
  int n_params = 0;  // per element (read through the params pointer)
  int n_uniforms = 0;
  size_t words() const {
    return 3 + 2 * static_cast<size_t>(std::max(n_slots, 1)) + 4 + 8 + 5 +
           static_cast<size_t>(std::max(n_uniforms, 1));
  }
};

struct LoweredKernel {
  std::string kernel_name;
  std::string symbol;          // base name of the emitted entry points
  std::string cuda_entry;      // extern "C" __global__ symbol
  std::string host_entry;      // extern "C" host loop symbol
  std::string element_source;  // target-neutral element functions and driver
  std::string cuda_source;     // complete NVRTC translation unit
  std::string host_source;     // complete host translation unit
  // SHA-256 of each source, computed once here so that cache lookups never rehash the text.
  std::string cuda_source_sha256, host_source_sha256;
  DerivativePlan plan;
  LoweringOptions options;
  ArgsLayout args;
  std::vector<int> input_vertex;    // resolved binding
  std::vector<int> slot_size;       // per active input slot
  std::vector<OpCounts> chunk_ops;  // per chunk
  OpCounts ops;                     // total per element
  int max_live = 0;                 // largest over chunks
  size_t statements = 0;            // emitted statements over all chunks
  size_t first_size = 0, second_size = 0;
  size_t dynamic_shared_bytes = 0;  // the CUDA entry's launch (jit/emit_assembly.h)
  std::string report() const;       // op counts, chunks, liveness
};

LoweredKernel lower(const Kernel& kernel, const LoweringOptions& options);

}  // namespace dualjit::jit
