// The launch that writes a tape kernel's linear outputs' Jacobian entries from its tapes with
// each tape slot read once per element, by the column groups of jit/tape_column_groups.h
// (bench/RESULTS.md, "the rows from the tapes, each slot read once": 1.19 ms for GRI-3.0 at 1e5
// cells on an H200 where the row groups take 3.7). On the GPU a block per 32 elements and
// column group, in the order TapeColumnsOptions::tile_window says: the group's tape slots staged in
// shared memory, each warp some entries, each a straight-line sum; entries composed from others
// (jit/tape_column_groups.h compose_entries) after a second barrier, from the warps' partial sums.
// On the host the same sums element by element. Entries are stored as ColumnStores says; the rows
// of outputs that are not linear are left alone.
//
// Besides the tape it reads an auxiliary array that a first launch writes, tiled as the tape
// (kTapeTile elements, slot-major in a tile), TapeColumnsAux's slots an element.
#pragma once

#include <cstdint>

#include "jit/jacobian_pattern.h"
#include "jit/lowering.h"
#include "jit/tape_column_groups.h"

namespace dualjit::jit {

// The auxiliary array's slots: for each cut i and linear output (TapeColumnPlan::outputs'
// index l), D[o][cut i], the sum of the output's terms over the tapes' cut components; d cut
// i / d input c; the value of each factor product (TapeColumnPlan::factors); then, where the
// rest kernel (jit/tape_rest_kernel.h) has a Jacobian pattern, its entries in the linear
// outputs' rows, in the pattern's order (the first of its rows are the linear outputs').
struct TapeColumnsAux {
  int n_linear = 0, n_cuts = 0, n_inputs = 0, n_factors = 0, n_rest = 0;
  TapeColumnsAux(const TapeColumnPlan& plan, int n_inputs, const JacobianPattern* rest = nullptr);
  int cut_sum(int cut, int linear) const { return cut * n_linear + linear; }
  int cut_gradient(int cut, int input) const { return n_cuts * n_linear + cut * n_inputs + input; }
  int factor(int f) const { return n_cuts * (n_linear + n_inputs) + f; }
  int rest(int k) const { return n_cuts * (n_linear + n_inputs) + n_factors + k; }
  int size() const { return n_cuts * (n_linear + n_inputs) + n_factors + n_rest; }
};

// How a columns' launch stores its entries (entry (o, c) of element e):
// - ComponentMajor, [o][c][e];
// - DirectTiles, for cell-major row-major blocks: only the entries that have terms
//   (direct_entries), without the cuts' parts D[o][cut] * d cut / dx_c and the rest kernel's
//   entries, tiled as the tape, [tile][direct slot][element of the tile], each warp's store one
//   line; lower_tape_expand then writes the blocks, adding those parts. A mechanism's
//   concentrations enter every species through the density's cut, so every entry of its
//   (T, Y) Jacobian has a cut part, but fewer than half have terms of their own (GRI-3.0: 1,370
//   of 2,916), and the pass that makes cell-major blocks reads those instead of every entry.
//   Row-major stores from the columns themselves lost to a pass: each lane storing its
//   element's entries touched 32 sectors a store, and neighbouring groups' segments of a row
//   shared sectors that reached memory half written (GRI-3.0's J 3x slower: bench/RESULTS.md);
// - CellColumns, [e][c][o], cell-major column-major blocks (BlockOrder::CellMajorColumns): a
//   group's columns are one run of each element's block, so the block's warps put the entries
//   in shared memory, element by element, and after a barrier the warps copy the 32 runs out,
//   each store 256 consecutive bytes of one run (bulk copies, cp.async.bulk, were no faster:
//   bench/RESULTS.md); a tile's groups are side by side in the grid, so that
//   each element's block is written in long runs at once (GRI-3.0's launches 0.3 ms faster
//   than a group's tiles together). Every output must be linear (the run is whole). Earlier
//   column-major stores, each warp writing its outputs' 56-byte run of a column from shared
//   memory with two warp barriers a column, ran at 32-48% of DRAM's bandwidth where tiles run
//   at 60-77% (bench/RESULTS.md).
enum class ColumnStores { ComponentMajor, DirectTiles, CellColumns };

struct TapeColumnsOptions {
  int warps = 8;       // a block's: 32 elements, a warp per set of outputs
  int min_blocks = 3;  // __launch_bounds__'s (bench/RESULTS.md: 3 blocks of 8 warps fastest)
  // The column groups [first, last) this launch writes (last < 0: to the end). A group whose
  // staged slots exceed the others' (GRI-3.0's column T: a slot of every reaction) in a launch
  // of its own lets the others' blocks take less shared memory and more of them fit.
  ChunkRange groups;
  ColumnStores stores = ColumnStores::ComponentMajor;
  // The grid's order: windows of tile_window tiles, each group over a window's tiles in turn
  // (0: one window, a group's tiles together, a component-major entry's lines in order; 1: a
  // tile's groups side by side, each element's block written in long runs at once). A window
  // whose tiles' leaves stay in L2 from the first group to the last lets the later groups read
  // them from L2 rather than DRAM.
  int tile_window = 0;
};

// Derived components (ColumnGroup::derived) are computed from their leaves in the tape while
// the group's slots are staged, before the barrier the entries wait for.
// Arguments: n_elements, tape (the kernel's tapes, TapePattern slots), aux, first (the
// entries, n_outputs x n_inputs a element, as options.stores says). With `rest`, the rest
// kernel's Jacobian pattern, each entry adds its auxiliary slot. Throws std::invalid_argument
// naming the kernel when the plan has no linear output or options are out of range.
LoweredKernel lower_tape_columns(const Kernel& kernel, const TapeColumnPlan& plan,
                                 const TapePattern& tapes, const TapeColumnsOptions& options = {},
                                 const JacobianPattern* rest = nullptr);

// Cell-major row-major blocks from ColumnStores::DirectTiles' entries: entry (o, c) of element
// e is its direct slot's value (0 where it has none), plus D[o][cut] * d cut / dx_c for each
// cut, plus the rest kernel's entry where `rest` has one, summed in the order the other stores
// sum them. On the GPU a block per 32 elements and 64 consecutive entries of their blocks,
// staged in shared memory, then each element's 64 entries stored as one run; on the host an
// element at a time. Every output must be linear. Arguments: n_elements, direct (the tiles),
// aux, first (the blocks, n_outputs x n_inputs an element). Throws std::invalid_argument naming
// the kernel when an output is not linear.
LoweredKernel lower_tape_expand(const Kernel& kernel, const TapeColumnPlan& plan,
                                const JacobianPattern* rest = nullptr);

// The launch that fills the auxiliary array: from the rest kernel's values and sparse
// Jacobian, both tiled (LoweringOptions::tiled_values, FirstStores::Tiled: its n_outputs and
// its pattern `rest`'s entries a tile row) the cut gradients, the factor products and the rest
// entries; then the cuts' sums over the tapes. On the GPU a block per 32 elements, a warp per
// part of the work (`parts`, 1 to 32), the parts' partial sums met in shared memory; the host
// runs the same phase functions, an element at a time and each phase part by part.
// Arguments: n_elements, tape, rest_values, rest_first, aux.
LoweredKernel lower_tape_aux(const Kernel& kernel, const TapeColumnPlan& plan,
                             const JacobianPattern& rest, const TapePattern& tapes, int parts = 4);

// The rest kernel's params (jit/tape_rest_kernel.h), a thread per element, where the kernel has
// params of its own: those, then its tapes' values, tiled as the tapes (jit/driver.h
// TiledParams, n_params + tapes slots a tile row). A kernel without params needs no gather:
// the rest kernel reads its tapes' values in place. Arguments: n_elements, tape, params, out.
LoweredKernel lower_tape_gather(const Kernel& kernel, const TapePattern& tapes);

}  // namespace dualjit::jit
