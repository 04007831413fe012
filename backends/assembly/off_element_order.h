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

// Calls write(term, element, at) for each off-diagonal block write of the vector terms' kernels,
// in the order they are emitted: term, element, output slot, its scatter rules, input slots;
// `at` indexes the term's BlockPattern::element_slots. A write returning false stops the walk.
template <class Write>
void for_each_off_write(const Problem& p, Write&& write) {
  for (size_t ti = 0; ti < p.n_terms(); ++ti) {
    const Term& t = p.term(ti);
    if (t.energy) continue;
    const int64_t k = t.elements.k, n = t.elements.size();
    for (int64_t e = 0; e < n; ++e)
      for (const auto& rules : t.output_scatter)
        for (const Scatter& r : rules)
          for (int vb : t.input_vertex)
            if (vb != r.vertex && !write(ti, e, static_cast<size_t>((e * k + r.vertex) * k + vb)))
              return;
  }
}

// Storage order: the vector terms in order, their elements in order, and an element's blocks
// in the order the kernels write them (output slot, its scatter rules, the input slots). Needs
// every off-diagonal block written by exactly one element (an edge-based scheme: no repeated
// edges, no two terms sharing a block) and fewer than 2^31 blocks; throws ProblemError naming
// the kernel, element and block otherwise.
OffElementOrder off_element_order(Problem& p);

}  // namespace dualjit::assembly
