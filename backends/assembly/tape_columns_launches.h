// The launches of a term's dense element blocks by the tape columns (jit/emit_tape_columns.h),
// lowered once for either backend: the tapes' (the kernel's tape chunk alone), where the kernel
// has params the gather of the rest kernel's, the rest kernel's sparse Jacobian
// (jit/tape_rest_kernel.h; tiled, as its params), the auxiliary array's and the columns', for
// either stores. Run in that order by HostTapeColumns and DeviceTapeColumns.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "backends/assembly/problem.h"
#include "jit/emit_tape_columns.h"
#include "jit/jacobian_pattern.h"
#include "jit/lowering.h"
#include "jit/tape_pattern.h"

namespace dualjit::assembly {

// How the columns' launches store the entries (jit/emit_tape_columns.h).
using ColumnStores = jit::ColumnStores;

// The stores that make blocks in `order`: component-major and cell-major columns directly;
// cell-major rows from the direct entries' tiles by the expand launch (jit::ColumnStores says
// why).
ColumnStores column_stores(BlockOrder order);

struct TapeColumnsLaunches {
  jit::TapePattern pattern;
  int aux_size = 0;  // the auxiliary array's slots an element (jit::TapeColumnsAux)
  jit::LoweredKernel tapes, rest, fill;
  // The columns' launches for each stores, each at most launch_groups column groups
  // (cell_launch_groups for CellColumns, whose plan groups columns as jit::ColumnStores needs):
  // a group of more staged values than its plan's limit (group_slots, component_group_slots; a
  // column no split can make smaller) alone, so that the others' blocks need less shared memory.
  std::map<ColumnStores, std::vector<jit::LoweredKernel>> columns;
  // After ColumnStores::DirectTiles' columns: the cell-major row-major blocks from their
  // direct_size slots an element (jit::lower_tape_expand).
  jit::LoweredKernel expand;
  int direct_size = 0;
  // Where the kernel has params: they and the tapes' values, tiled, the rest kernel's params.
  // Else none: the rest kernel reads its params, the tapes' values, from the tape.
  std::optional<jit::LoweredKernel> gather;
};

// How the launches are lowered. layout and effort: the element kernels' (the tapes' and the
// rest kernel's; both exceed jit's large-kernel bound, so Auto compiles them with ptxas -O0,
// GRI-3.0's tapes 16x slower than at Full); group_slots: a column group's staged values at
// most (jit::ColumnGroup::staged: tape slots, among them the leaves of factored tapes, and the
// components derived from them), component_group_slots the same for the component-major
// launches. Smaller groups fit more blocks a multiprocessor, larger ones read each leaf in fewer
// groups: GRI-3.0's component-major Jacobian at 1e5 cells on an H200 took 3.01 ms at 200,
// 2.92 at 175 and 150, 2.99 at 120; the cell-major one (then tiles) 3.92, 3.94, 3.97, 4.07
// (bench/RESULTS.md);
// launch_groups: a columns' launch's groups at most. ptxas time grows faster than a launch's
// entries, and the launches compile in parallel: GRI-3.0's nine groups in one launch took 20 s
// (NVRTC 13, one core), twice the tapes' launch; in launches of two the largest takes 5 s.
struct TapeColumnsSettings {
  jit::LaunchLayout layout;
  jit::CompileEffort effort = jit::CompileEffort::Auto;
  int group_slots = 200;
  int component_group_slots = 175;
  int launch_groups = 2;
  // ColumnStores::CellColumns: a block's staged runs (32 elements' runs of its group's columns)
  // at most these bytes, a launch's groups at most cell_launch_groups, and its blocks a
  // multiprocessor. Its groups are smaller than the others' (two columns for GRI-3.0) so that
  // runs and slots leave room for three or four blocks a multiprocessor. GRI-3.0's Jcol at 1e5
  // cells on an H200: 3.46 ms at 3 blocks, 3.38 at 4 (64 registers), where the other columns'
  // launches lose at 4. A launch runs its groups side by side, each group's code at once: with
  // factored tapes' derived components in it, launches of 1, 2, 3 and 6 groups took 3.45, 3.21,
  // 3.19 and 3.84 ms, the last missing the instruction cache (bench/RESULTS.md).
  int cell_run_bytes = 28 * 1024;
  int cell_launch_groups = 3;
  int cell_min_blocks = 4;
  int min_blocks = 3;  // the other columns' launches' (jit::TapeColumnsOptions)
  // The tapes' launch's and the rest kernel's blocks a multiprocessor where `layout` leaves
  // ptxas free (min_blocks 0): 12 warps at 170 registers rather than 8 at 255, which the
  // tapes' launch, bound by latency rather than by its spills' traffic, turns into time.
  // GRI-3.0 at 1e5 cells on an H200: J 3.85-3.87 ms against 3.89, Jc 2.85-2.87 against 2.89-2.90,
  // Jcol 3.10-3.12 against 3.14-3.15; at 4 blocks (128 registers) all three slower
  // (bench/RESULTS.md).
  int tapes_min_blocks = 3;
  // The direct entries' and component-major columns' launches' grid order (jit::TapeColumnsOptions
  // tile_window): 0, a group's tiles together. Cell-major columns always run a tile's groups
  // side by side (1). Windows that keep a tile's leaves in L2 from group to group moved
  // GRI-3.0's J at 1e5 cells on an H200 from 3.85 ms to 3.79-3.91 and Jc from 2.85 to
  // 2.82-3.93 (side by side, 1, the slowest), with up to all groups in one launch: the tiled
  // launches read 1.87 GB from DRAM instead of more than 2.03 and ran as fast
  // (bench/RESULTS.md).
  int tile_window = 0;
  // The aux launch's warps a tile of 32 elements (jit::lower_tape_aux's parts, 1 to 32).
  // GRI-3.0 at 1e5 cells on an H200: 0.301, 0.271, 0.211 and 0.278 ms at 1, 2, 4 and 8
  // (bench/RESULTS.md).
  int aux_parts = 4;
};

// The column groups [first, last) of each columns' launch: in order, at most per_launch
// groups a launch, a group of more staged values than `slots` (a column no split can make
// smaller) alone, so that the others' blocks need less shared memory.
std::vector<jit::ChunkRange> column_launch_groups(const jit::TapeColumnPlan& plan, int slots,
                                                  int per_launch);

// Whether the rest kernel's Jacobian `rest` (jit/tape_rest_kernel.h) holds more than half the
// entries of the first n_linear rows, the linear outputs'. Each entry is an auxiliary slot of
// every element, written and read again, and its kernel differentiates a term per tape in
// every column:
// where each output is weighed by a factor of the whole state (a reactor's right-hand side,
// W_k w_k / rho and sum_k h_k w_k / (rho c_p)), GRI-3.0's rest Jacobian is the whole block,
// its kernel 18,179 statements spilling 111 KB, and its Jacobians took 3.8x the row groups'
// time in a batched ignition on an H200 (bench/RESULTS.md). A mechanism's production rates
// keep the heat release's T column alone.
bool dense_rest(const jit::JacobianPattern& rest, size_t n_linear, int n_inputs);

// Of the term's tape_columns_kernel(); empty when it keeps no tapes, has an output not linear
// in them or its rest Jacobian is dense (dense_rest): the row groups serve those.
std::optional<TapeColumnsLaunches> tape_columns_launches(const Term& term,
                                                         const TapeColumnsSettings& settings = {});

}  // namespace dualjit::assembly
