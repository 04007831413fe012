// Edge-based storage of the split Jacobian's off-diagonal blocks: each element's blocks stored
// together, element after element (an edge's two blocks side by side, as edge-based CFD
// solvers store them), instead of by rows over the off-diagonal pattern. A fused kernel then
// writes Aoff in one contiguous run per GPU block; a reader by rows (a product, Gauss-Seidel)
// follows an index from each position of the row pattern to its block in storage.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/assembly/problem.h"

namespace dualjit::assembly {

struct OffElementOrder {
  // Per term, in term order (empty for energy terms): BlockPattern::element_slots of the
  // off-diagonal pattern renumbered to storage order; diagonal pairs keep -1 - node.
  std::vector<std::vector<int64_t>> element_slots;
  // The storage index of each block of the off-diagonal pattern, by its position in the rows.
  std::vector<int32_t> storage_of_block;
};

// Storage order: the vector terms in order, their elements in order, and an element's blocks
// in the order the kernels write them (output slot, its scatter rules, the input slots). Needs
// every off-diagonal block written by exactly one element (an edge-based scheme: no repeated
// edges, no two terms sharing a block) and fewer than 2^31 blocks; throws ProblemError naming
// the kernel, element and block otherwise.
OffElementOrder off_element_order(Problem& p);

}  // namespace dualjit::assembly
