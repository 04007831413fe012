// The pieces of the staged gathers by column (staged_gather.cpp and
// warp_specialized_gather.cpp): their shared-memory layout and the text of each phase of a
// tile, for a group of `threads` threads whose index is `tid` (the whole block, or the
// write-out warpgroup of the warp-specialised kernel). Tile: T elements per side; the block's
// shared arrays are named dj_val, dj_d1 (staging), dj_racc, dj_dacc (running sums per side),
// dj_run (each node's run per side in the tile) and dj_slot.
#pragma once

#include <string>
#include <vector>

#include "backends/assembly/strategies/emit_helpers.h"

namespace dualjit::assembly::emit {

// The most nodes one block owns with a tile of `tile` threads (its shared accumulators hold
// that many residual rows and diagonal blocks).
inline int gather_max_nodes(int tile) {
  return tile / 2 > 1 ? tile / 2 : 1;
}

// The staged gather's shared arrays, in elements (doubles, then ints), for a tile of T
// elements per side: one staging buffer (every side's values, then the d1 rows the sides
// share, odd strides against bank conflicts), the running sums per node and side, each node's
// run per side and the tile's off-diagonal slots. Both gather entries lay them out from here,
// and their byte counts come from here.
struct GatherShared {
  int values = 0, d1 = 0, racc = 0, dacc = 0, runs = 0, slots = 0;
  int staging() const { return values + d1; }
};
GatherShared gather_shared(const jit::DriverSpec& s, const FusedSpec& a);

// The element function of one side: element e differentiated with respect to its vertex lv's
// slot, its values and derivatives written to the tile's staging area.
std::string side_function(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
                          const FusedSpec& a);

// The gathers' argument fields and per-term structure (side incidence and node blocks).
std::vector<jit::ArgField> gather_tile_fields(const FusedSpec& a);
TermStructure gather_tile_structure(const TermContext& t, const FusedSpec& a);

// What the two staged gathers share besides their kernels: node-owned blocks that store the
// rows of the first term and, with one writer per slot, Aoff (no zeroing); every chunk writes
// values; one element per thread; CUDA only (the host form is gather-by-column); the side
// incidence and node blocks as structure.
class TiledGatherStrategy : public FusedStrategy {
 public:
  explicit TiledGatherStrategy(FusedSpec s) : FusedStrategy(normalised(std::move(s))) {}
  static FusedSpec normalised(FusedSpec s);
  std::string_view host_form() const override { return "gather-by-column"; }
  void adapt(jit::DerivativePlan& plan) const override { every_chunk_writes_values(plan); }
  std::string host_entry(const jit::DriverSpec&, const jit::DerivativePlan&) const override {
    return {};
  }
  bool runs_on_host() const override { return false; }
  TermStructure structure(const TermContext& t) const override {
    return gather_tile_structure(t, spec());
  }

 protected:
  std::string prefix() const override { return "_gc"; }
  // "s", then "d" (direct Aoff stores) and "o" (owned rows) where they apply.
  std::string tile_letters() const;
  // The gathers' checks and one element per thread.
  void check_tile(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
                  const std::string& kernel) const;
  std::vector<jit::ArgField> own_fields(const jit::DriverSpec&) const override {
    return gather_tile_fields(spec());
  }
};

struct GatherTile {
  // Per side: its input slot, the summands of its residual rows and diagonal blocks (added one
  // at a time in this order) and its off-diagonal block writes (f: the element's place in the
  // side's tile).
  struct Side {
    int slot = -1;
    std::vector<std::string> rows, diag;
    std::string offs;
  };
  const jit::DriverSpec& s;
  const FusedSpec& a;
  int T, K, B, BB, nodes, ks, d1_stride, out_stride;
  GatherShared mem;
  std::vector<Side> sides;

  GatherTile(const jit::DriverSpec& spec, const FusedSpec& as);
  // Offset of side lv's value area in the staging buffer.
  std::string values_of(int lv) const { return std::to_string(lv * T * out_stride); }
  // n0, nn, the sides' ranges (ptrL, startL, endL) and n_tiles of node block `nb`.
  std::string node_block(const std::string& nb, const std::string& in) const;
  // Running sums, per side (the side's rows one after another, as the nodes), set to zero.
  std::string zero_sums(const std::string& tid, int threads, const std::string& in) const;
  // baseL, hereL of the tile.
  std::string tile_range(const std::string& in) const;
  // Each node's run in the tile per side, and the tile's off-diagonal slots.
  std::string runs_and_slots(const std::string& tid, int threads, const std::string& in) const;
  // Element f of side lv staged (f < hereL checked by the caller).
  std::string run_side(int lv, const std::string& f) const;
  // The tile's off-diagonal blocks, every lane busy over the flattened (element, entry) range:
  // consecutive lanes write consecutive entries of a block.
  std::string write_out(const std::string& tid, int threads, const std::string& in) const;
  // Per node, side and entry: the side's run of the tile added, in element order, to the
  // side's running sum (a hub's run may span several tiles); the sides are added once, at the
  // end (gather_by_column.cpp): the same order for any tile size.
  std::string reduce(const std::string& tid, int threads, const std::string& in) const;
  // Each node's residual row and diagonal block: its sides' sums, side by side, stored (the
  // first term) or added.
  std::string store_rows(const std::string& tid, int threads, const std::string& in) const;
};

}  // namespace dualjit::assembly::emit
