// The plan of the launches that compose a tape kernel's linear outputs (jit/tape_linear_outputs.h)
// from its tapes with each tape slot read once per element (bench/RESULTS.md, "the rows from
// the tapes, each slot read once"): the entries
//   D[o][c] = sum over o's terms (scale * factor product * d tape / d direction c)
// by column groups. Columns are the kernel's inputs, grouped in order until a group's tape
// slots would pass a limit (a launch's block stages them in shared memory), and the cut
// directions the tapes carry, one group of their own (the first launch's: every input's entry
// then adds D[o][cut] * d cut / d x).
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

struct ColumnGroup {
  std::vector<int> columns;
  std::vector<int64_t> slots;        // tape slots the group reads, each once, in order of first use
  std::vector<ColumnEntry> entries;  // column-major: every linear output of a column together
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

// Throws std::invalid_argument on a limit below 1 or outputs of another kernel's size.
TapeColumnPlan plan_tape_columns(const TapePattern& tapes,
                                 const std::vector<TapeLinearOutput>& outputs, int n_inputs,
                                 int max_group_slots);

}  // namespace dualjit::jit
