// Where an element's tapes (dsl/expr.h tape()) live in its tape buffer, and which tangent
// components each one stores. A tape's tangent is its operand's in the directions a
// first-order chunk carries: every input, and the own direction of every cut (Op::Cut) that
// the operand is computed through, so that a density cut that every input enters stays one
// component rather than one per input. The components come from the graph alone (a
// superset of what expansion finds; the tape chunk stores zeros for the rest), so every chunk
// and every launch of a kernel agree on them without expanding the tapes' cone.
//
// An element's slots: tape t's value at offset[t], its components after it in `entries[t]`'s
// order. The buffer holds tiles of kTapeTile elements, slot k of element e at
// (e / kTapeTile * size + k) * kTapeTile + e % kTapeTile: a warp's store or load of a slot is
// one line.
#pragma once

#include <cstdint>
#include <vector>

#include "dsl/kernel.h"

namespace dualjit::jit {

inline constexpr int kTapeTile = 32;

// A component: d operand / d input, or d operand / d (the cut's own direction).
struct TapeEntry {
  int input = -1;        // flat input index, or -1
  NodeId cut = kNoNode;  // the cut's node in the kernel's graph, when input < 0
  bool operator==(const TapeEntry&) const = default;
};

struct TapePattern {
  std::vector<NodeId> tapes;  // the kernel graph's Tape nodes, ascending
  std::vector<int64_t> offset;
  std::vector<std::vector<TapeEntry>> entries;
  int64_t size = 0;  // slots per element
  bool empty() const { return tapes.empty(); }
  int index_of(NodeId tape) const;  // -1 when not a tape
};

TapePattern tape_pattern(const Kernel& kernel);

// Doubles a tape buffer of n_elements holds (whole tiles).
int64_t tape_doubles(const TapePattern& p, int64_t n_elements);
int64_t tape_doubles(int64_t size, int64_t n_elements);

}  // namespace dualjit::jit
