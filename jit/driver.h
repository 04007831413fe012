// A driver is the code around an element's chunk functions: how an element's inputs are
// gathered, which chunks a thread runs and where the results go. The element-local driver
// (jit/element_driver.h) writes each element's values and derivatives to memory; assembly
// strategies (backends/assembly/strategies/) are drivers that assemble in place.
//
// A driver owns everything that differs between strategies: its emitted text, its argument
// fields (jit/kernel_args.h), its launch policy and its compile flags. lower() asks the driver
// for each and records them in the LoweredKernel, so the backends launch any driver without
// knowing what it is, and adding one touches neither the backends nor the lowering passes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "jit/derivative_plan.h"
#include "jit/first_stage.h"
#include "jit/kernel_args.h"

namespace dualjit::jit {

// How threads map to elements on the GPU: T threads per element (each runs chunks t, t+T,
// ...; the T threads of an element sit in different warps so that every warp runs one
// chunk's code: no divergence), B elements per block (a multiple of 32).
struct LaunchLayout {
  int threads_per_element = 1;
  int elements_per_block = 128;
  // Blocks per multiprocessor ptxas must fit (__launch_bounds__'s second argument): caps
  // registers per thread to trade spills for occupancy; 0 leaves ptxas free.
  int min_blocks = 0;
  // Where a launch's chunks only read tapes (jit/tape_pattern.h) and so do not depend on each
  // other: each block runs one chunk for its elements, and the blocks of one element range sit
  // next to each other in the grid. The chunks that read an element's tapes then run at the same
  // time and their repeated reads of them meet in L2; one after another on each element's
  // thread, every resident element's chunk passes between two reads of one element's tapes, and
  // the reads go to DRAM.
  bool side_by_side = true;
  int block_threads() const { return threads_per_element * elements_per_block; }
  std::string describe() const;
};

// How the element-local driver stores an element's first derivatives (LoweringOptions::
// first_stores). A thread that stores its own element's entries one at a time makes every warp
// store 32 lines an element's block apart; GRI-3.0's Jacobian kernels ran a third faster on an
// H200 with the warp's stores coalesced (bench/RESULTS.md).
enum class FirstStores {
  Direct,  // element-major, each thread its own element's entries (the gather strategies')
  Tiled,   // tiles of kFirstTile elements, [tile][entry][element of the tile]: a warp's store
           // of an entry is one 256-byte line; dj_untile (backends/assembly) reorders them
  Staged,  // element-major, each chunk's entries staged in shared memory (jit/first_stage.h)
           // and written by the warp, element by element, when the chunk ends
  StagedComponentMajor,  // component-major, entry k of element e at k * n_elements + e, staged
                         // likewise: a chunk's stores know no element count to stride by
};

// Whether first derivatives go through the stage (jit/first_stage.h).
inline bool is_staged(FirstStores s) {
  return s == FirstStores::Staged || s == FirstStores::StagedComponentMajor;
}

// Elements per tile of tiled first derivatives: a warp's.
inline constexpr int kFirstTile = 32;

// Elements' blocks a first-derivative array of n elements holds: tiled ones are whole tiles.
inline int64_t stored_elements(FirstStores s, int64_t n) {
  return s == FirstStores::Tiled ? (n + kFirstTile - 1) / kFirstTile * kFirstTile : n;
}

// Where an element's params are read (LoweringOptions::tiled_params): by default element-major,
// param i of element e at e * n_params + i; tiled, from tiles of kFirstTile elements,
// [tile][slot][element of the tile], `slots` a tile row, param i at slot at[i]. A kernel whose
// params are another kernel's tape values (jit/tape_pattern.h, the same tiles) reads them in
// place, each warp's read of a param one line.
struct TiledParams {
  int64_t slots = 0;
  std::vector<int64_t> at;  // empty: element-major params
  bool tiled() const { return !at.empty(); }
};

// What a driver's text is emitted from: the kernel's slots and sizes, and the layout.
struct DriverSpec {
  std::string symbol;
  int n_chunks = 1;
  std::vector<int> slot_size;     // per active input slot
  std::vector<int> slot_offset;   // first flat input of each slot
  std::vector<int> input_vertex;  // element vertex per slot
  int n_inputs = 0, n_params = 0, n_uniforms = 0, n_outputs = 0;
  TiledParams params;         // LoweringOptions::tiled_params
  bool tiled_values = false;  // LoweringOptions::tiled_values
  size_t first_size = 0, second_size = 0;
  bool hvp = false;
  FirstStores first_stores = FirstStores::Direct;  // LoweringOptions::first_stores
  // Staged: each of this launch's chunks' first-derivative entries, one range of the element's
  // block (jit/first_stage.h), and the longest of them: each warp's stage holds that many.
  std::vector<StageRange> stage;
  int stage_entries = 0;
  // Slots of an element's tape (jit/tape_pattern.h); 0: the kernel keeps none. Its chunk
  // functions then take the element's tape pointer `tp` last.
  int64_t tape_size = 0;
  LaunchLayout layout;
  // LoweringOptions::companions, in order: each one's chunk functions are
  // `<companion symbol>_c<c>`, with the same signature as the kernel's own.
  std::vector<DriverSpec> companions;
  std::string args_type() const { return "DjArgs_" + symbol; }
};

// How a CUDA launch covers the work: `items` names the Int64 argument counted (elements,
// nodes, node blocks), `items_per_block` of them per block of `block_threads` threads.
struct LaunchPolicy {
  std::string items = "n_elements";
  int64_t items_per_block = 128;
  int block_threads = 128;
  size_t dynamic_shared_bytes = 0;
  // > 0: a persistent grid of at most this many blocks per multiprocessor.
  int blocks_per_sm = 0;
  // Blocks for each items_per_block items, consecutive in the grid (LaunchLayout::side_by_side).
  int blocks_per_item_block = 1;
};

struct CompileFlags {
  // Off: no contraction of a * b + c into FMAs, so the bits do not depend on how a particular
  // compile scheduled the arithmetic.
  bool fused_multiply_add = true;
  // The architecture-specific target the kernel needs ("sm_90a" for setmaxnreg); it replaces a
  // requested "sm_90" and refuses any other architecture. Empty: any architecture.
  std::string arch_specific;
};

class Driver {
 public:
  virtual ~Driver() = default;
  // Appended to the kernel's symbol; names the driver and its options ("" for none).
  virtual std::string suffix() const = 0;
  // Adjusts the derivative plan before expansion (e.g. every chunk also writes values).
  virtual void adapt(DerivativePlan&) const {}
  // Throws std::invalid_argument naming `kernel` when the kernel, plan and driver do not fit.
  virtual void check(const DriverSpec&, const DerivativePlan&, const std::string&) const {}
  // Fields between the common ones (jit/element_driver.h, common_fields) and the uniforms.
  virtual std::vector<ArgField> fields(const DriverSpec&) const = 0;
  // Target-neutral functions after the chunk functions, used by both entries.
  virtual std::string functions(const DriverSpec&, const DerivativePlan&) const { return {}; }
  // extern "C" __global__ <symbol>(const <args type> a), with any CUDA-only helpers before it.
  virtual std::string cuda_entry(const DriverSpec&, const DerivativePlan&) const = 0;
  // extern "C" void <symbol>_host(const <args type>* a), with any host-only helpers before it;
  // "" when the driver has no host form (runs_on_host() false).
  virtual std::string host_entry(const DriverSpec&, const DerivativePlan&) const = 0;
  virtual bool runs_on_host() const { return true; }
  virtual LaunchPolicy launch(const DriverSpec&) const = 0;
  virtual CompileFlags compile_flags() const { return {}; }
};

}  // namespace dualjit::jit
