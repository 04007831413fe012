// Outputs composed from other outputs. A kernel whose output y_o is computed from other outputs
// y_p (a heat release from the production rates it sums, an energy equation's right-hand side
// from the species') has, by the chain rule,
//   dy_o/dx = (partial y_o/partial x) + sum_p (partial y_o/partial y_p) dy_p/dx,
// so in row groups y_o's row need not push every direction through the whole graph again: it
// reads the rows y_p's groups store and composes them (jit/derivative_plan.h Chunk::reads).
// GRI-3.0's heat-release row alone held 27,140 of its (T, Y) Jacobian's 117,836 operations per
// cell when it was computed from the inputs (bench/RESULTS.md).
#pragma once

#include <vector>

#include "dsl/kernel.h"

namespace dualjit::jit {

struct OutputComposition {
  // Per output: the outputs it is composed from, ascending (those whose nodes its graph reaches
  // without passing through another output's node); empty for an output computed from the
  // inputs alone. Only base outputs (themselves computed from the inputs alone, and not a leaf
  // or a constant) count: an output that reaches a composed one is computed whole.
  std::vector<std::vector<int>> bases;
  bool any() const;
  bool composed(int output) const { return !bases[static_cast<size_t>(output)].empty(); }
};

OutputComposition output_composition(const Kernel& kernel);

}  // namespace dualjit::jit
