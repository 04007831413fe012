// A chunk in parts, each a share of its stores run by blocks of its own, instead of all of it by
// one thread an element: GRI-3.0's tape chunk, 16k statements with some three hundred values
// live at once, spilled 3 KB a thread and waited on the reloads two cycles in three
// (bench/RESULTS.md). A part holds a few dozen.
//
// The stores go to the parts in schedule order, runs of about equal cost, so that a reaction's
// rate and the slots derived from it fall in one part. Values that several parts read (a
// mechanism's species concentrations and Gibbs functions, products of concentrations that
// several reactions share) are staged: computed once, by a launch before the parts', into a
// buffer the parts read. A shared value computed by one cheap operation from leaves, or from
// leaves and one staged value, is computed again by each part that reads it instead.
//
// The parts run one after another in the grid, not side by side in a block: a multiprocessor
// whose warps each run a different part's code waited on instruction fetch 50-70% of the time
// (GRI-3.0's tapes split over the warps of a block, the staged values in shared memory:
// bench/RESULTS.md).
#pragma once

#include <vector>

#include "jit/scalar_program.h"

namespace dualjit::jit {

struct ChunkParts {
  // The staged values (Target::Shared stores, slot by slot in schedule order) and what they are
  // computed from.
  ScalarProgram stage;
  // Per part: its share of the chunk's stores, the staged values it reads as
  // Input(kSharedSlot, slot) leaves (which emission loads at each reader: jit/emit_element.h
  // SharedValues).
  std::vector<ScalarProgram> parts;
  int staged_slots = 0;  // staged values an element
};

// `scheduled` (jit/schedule.h) in `parts` parts (2 to 32); the programs are scheduled, in
// `scheduled`'s order. Throws std::invalid_argument outside that range.
ChunkParts split_chunk(const ScalarProgram& scheduled, int parts);

}  // namespace dualjit::jit
