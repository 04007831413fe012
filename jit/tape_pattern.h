// Where an element's tapes (dsl/expr.h tape()) live in its tape buffer, and which tangent
// components each one stores. A tape's tangent is its operand's in the directions a
// first-order chunk carries: every input, and the own direction of every cut (Op::Cut) that
// the operand is computed through, so that a density cut that every input enters stays one
// component rather than one per input. The components come from the graph alone (a
// superset of what expansion finds; the tape chunk stores zeros for the rest), so every chunk
// and every launch of a kernel agree on them without expanding the tapes' cone.
//
// A factored tape stores fewer: where its operand is a polynomial (sums, differences,
// negations, products, quotients by what does not depend on them) in the leaves of some of its
// directions, inputs and cuts that it reads only that way, those components are derived by
// its readers from the head, the polynomial's ops over leaf values the tape chunk stores once
// per element (a mechanism's rate of progress k_f prod C^a - k_r prod C^b, C a cut times an
// input: k_f, k_r and the inputs' and the cut's values instead of a component per species;
// GRI-3.0's tape 1,531 values a cell instead of 2,486, bench/RESULTS.md). Derived by products
// of the other factors, never by dividing the operand by one, so a zero concentration is exact.
// A tape is factored where its derived directions outnumber its leaves that are not theirs (a
// falloff rate, whose k reads every concentration through M, and a tape of tapes stay whole).
//
// An element's slots: tape t's value at offset[t], its stored components after it in
// `entries[t]`'s order; after every tape, leaf i's value at leaf_offset + i. The buffer holds
// tiles of kTapeTile elements, slot k of element e at (e / kTapeTile * size + k) * kTapeTile +
// e % kTapeTile: a warp's store or load of a slot is one line.
#pragma once

#include <cstdint>
#include <vector>

#include "dsl/kernel.h"
#include "jit/tape_head.h"

namespace dualjit::jit {

inline constexpr int kTapeTile = 32;

struct TapePattern {
  std::vector<NodeId> tapes;  // the kernel graph's Tape nodes, ascending
  std::vector<int64_t> offset;
  std::vector<std::vector<TapeEntry>> entries;  // the stored components
  std::vector<TapeHead> heads;                  // per tape
  std::vector<NodeId> leaves;                   // the values the heads read
  int64_t leaf_offset = 0;
  int64_t size = 0;  // slots per element
  bool empty() const { return tapes.empty(); }
  int index_of(NodeId tape) const;  // -1 when not a tape
  int64_t leaf_slot(int leaf) const { return leaf_offset + leaf; }
};

TapePattern tape_pattern(const Kernel& kernel);

// Doubles a tape buffer of n_elements holds (whole tiles).
int64_t tape_doubles(const TapePattern& p, int64_t n_elements);
int64_t tape_doubles(int64_t size, int64_t n_elements);

}  // namespace dualjit::jit
