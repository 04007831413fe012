// The plan of the launches that compose a tape kernel's linear outputs (jit/tape_linear_outputs.h)
// from its tapes with each tape slot read once per element (bench/RESULTS.md, "the rows from
// the tapes, each slot read once"): the entries
//   D[o][c] = sum over o's terms (scale * factor product * d tape / d direction c)
// by column groups. Columns are the kernel's inputs, grouped in order until what a group
// stages, its tape slots and the components it derives from factored tapes' leaves
// (jit/tape_pattern.h), would pass a limit (a launch's block stages them in shared memory), and
// the cut directions the tapes carry, one group of their own (the first launch's: every input's
// entry then adds D[o][cut] * d cut / d x).
#pragma once

#include <cstdint>
#include <vector>

#include "jit/tape_linear_outputs.h"
#include "jit/tape_pattern.h"

namespace dualjit::jit {

// A term of an entry: scale * factor product `factor` (-1: none) * the group's staged slot.
struct ColumnTerm {
  int staged = -1;  // index into ColumnGroup::slots
  double scale = 1.0;
  int factor = -1;  // index into TapeColumnPlan::factors
};

struct ColumnEntry {
  int output = -1;  // flat output index
  int column = -1;  // input index, or cut_column(i) for the i-th cut
  std::vector<ColumnTerm> terms;
};

// A component a factored tape's readers derive (TapeHead::derived[component] of tape `tape`).
struct DerivedSlot {
  int tape = -1;
  int component = -1;
  bool operator==(const DerivedSlot&) const = default;
};

// A group stages the tape slots of its stored components (ColumnTerm::staged below
// slots.size()), then the derived components its terms read (from slots.size() on), each from
// its tape's leaves.
struct ColumnGroup {
  std::vector<int> columns;
  std::vector<int64_t> slots;  // tape slots the group reads, each once, in order of first use
  std::vector<DerivedSlot> derived;
  std::vector<ColumnEntry> entries;  // column-major: every linear output of a column together
  size_t staged() const { return slots.size() + derived.size(); }
};

struct TapeColumnPlan {
  std::vector<int> outputs;                      // the linear outputs, ascending
  std::vector<NodeId> cuts;                      // the cut directions, as the tapes carry them
  std::vector<std::vector<TapeFactor>> factors;  // the distinct factor products of the terms
  std::vector<ColumnGroup> groups;               // the inputs' columns
  ColumnGroup cut_group;                         // the cuts' columns
};

// Column index of the i-th cut direction in ColumnEntry::column.
constexpr int cut_column(int i) {
  return -1 - i;
}

// An entry composed from others of its group and column: where the terms of one factor
// product f are lambda times every term of a factor-free entry j (the same staged slots, each
// scale lambda times j's), they sum to factor f * lambda * (j's sum). A mechanism's heat release
// summed over species, -RT sum_k (h_k/RT) wdot_k, is each column's species entries weighted by
// factors: composed, its entry costs a term per species instead of a term per species' term.
struct ComposedPart {
  int entry = -1;  // the factor-free entry j, an index into the group's entries
  int factor = -1;
  double lambda = 1.0;
};
struct EntryComposition {
  std::vector<ComposedPart> parts;  // empty: the entry is not composed
  std::vector<ColumnTerm> rest;     // its terms that no part covers
};

// One per entry of `g`, in order. A factor-free entry is never composed, so the parts' entries
// are not either.
std::vector<EntryComposition> compose_entries(const ColumnGroup& g);

// The entries that have terms, over every group of the plan (not the cuts'), numbered in
// row-major order of (output, column): ColumnStores::DirectTiles' slots.
struct DirectEntries {
  int n_outputs = 0, n_inputs = 0;
  std::vector<int> slot;  // [output * n_inputs + column]: the entry's slot, or -1
  int count = 0;
  int at(int output, int column) const { return slot[size_t(output) * n_inputs + column]; }
};
DirectEntries direct_entries(const TapeColumnPlan& plan, int n_outputs, int n_inputs);

// group_columns > 0: besides the slot limit, a group never spans a multiple of group_columns
// (each such column starts a group). In a cell's column-major block a group's entries are one
// run (ColumnStores::CellColumns); with group_columns = 32 / gcd(8 n_outputs, 32) (pairs for
// GRI-3.0's 54 outputs, fours for h2o2's 11) such a group's run starts and ends on 32-byte
// sectors.
// Throws std::invalid_argument on a limit below 1, group_columns below 0 or outputs of another
// kernel's size.
TapeColumnPlan plan_tape_columns(const TapePattern& tapes,
                                 const std::vector<TapeLinearOutput>& outputs, int n_inputs,
                                 int max_group_slots, int group_columns = 0);

}  // namespace dualjit::jit
