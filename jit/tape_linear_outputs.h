// The outputs of a tape kernel (jit/tape_pattern.h) that are linear in its tapes:
//   out = sum_t scale_t * (product of tape-free factors_t) * tape_t  (+ a tape-free rest),
// such as a mechanism's net production rates (stoichiometric sums of the rates of progress) and
// its heat release (T-dependent weights of them). Their Jacobian rows are then linear maps of
// the tapes' tangents, which a lowering can compose with each tape slot read once per element
// (bench/RESULTS.md, "the rows from the tapes, each slot read once") instead of once per row
// group that reads it.
#pragma once

#include <compare>
#include <vector>

#include "dsl/kernel.h"
#include "jit/tape_pattern.h"

namespace dualjit::jit {

// A factor of a term: a node free of tapes, or its reciprocal.
struct TapeFactor {
  NodeId node = kNoNode;
  bool inverse = false;
  auto operator<=>(const TapeFactor&) const = default;
};

// scale * product(factors) * tape `tape` (an index into TapePattern::tapes).
struct TapeTerm {
  int tape = -1;
  double scale = 1.0;
  std::vector<TapeFactor> factors;
};

// scale * product(factors) * node, a summand free of tapes.
struct TapeFreeTerm {
  NodeId node = kNoNode;
  double scale = 1.0;
  std::vector<TapeFactor> factors;
};

struct TapeLinearOutput {
  bool linear = false;  // false: the output depends on a tape other than linearly
  std::vector<TapeTerm> terms;
  std::vector<TapeFreeTerm> rest;  // out = sum(terms) + sum(rest)
};

// One entry per flat output of `kernel`, in order. An output through no tape is linear with
// no terms. Recognised: sums, differences, negation, products with one tape-free side,
// quotients by a tape-free node, and a tape itself (whose operand is not looked into).
std::vector<TapeLinearOutput> tape_linear_outputs(const Kernel& kernel, const TapePattern& tapes);

}  // namespace dualjit::jit
