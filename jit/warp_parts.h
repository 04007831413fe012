// A chunk run by the warps of a block for the same 32 elements, each warp a part of its stores,
// instead of by one thread an element: GRI-3.0's tape chunk, 16k statements with some three
// hundred values live at once, spilled 3 KB a thread and waited on the reloads two cycles in
// three (bench/RESULTS.md). A part holds a few dozen.
//
// The stores go to the parts in schedule order, runs of about equal cost, so that a reaction's
// rate and the slots derived from it fall in one part. Values that several parts read (a
// mechanism's species concentrations and Gibbs functions, products of concentrations that
// several reactions share) are computed once, in a first phase spread over the warps, into
// shared memory, and read from there by the parts after a barrier; such a value computed by one
// cheap operation from leaves, or from one staged value, is computed again by each part that
// reads it instead, which keeps the shared memory a block needs small enough for two blocks a
// multiprocessor.
#pragma once

#include <vector>

#include "jit/scalar_program.h"

namespace dualjit::jit {

struct WarpParts {
  // Per warp, in order: the staged values it computes (Target::Shared stores, each staged value
  // by one warp), with what they are computed from again where another warp's need it too.
  std::vector<ScalarProgram> stage;
  // Per warp: its share of the chunk's stores, the staged values it reads as
  // Input(kSharedSlot, slot) leaves (which emission loads at each reader: jit/emit_element.h
  // SharedValues).
  std::vector<ScalarProgram> parts;
  int shared_slots = 0;  // staged values an element
};

// `scheduled` (jit/schedule.h) split for `warps` warps (2 to 32); the programs are scheduled,
// in `scheduled`'s order. Throws std::invalid_argument outside that range.
WarpParts split_warps(const ScalarProgram& scheduled, int warps);

}  // namespace dualjit::jit
