#include "backends/assembly/off_element_order.h"

#include <limits>
#include <string>

namespace dualjit::assembly {

OffElementOrder off_element_order(Problem& p) {
  const mesh::BlockPattern& pattern = p.off_pattern();
  const int64_t n_blocks = pattern.n_blocks();
  if (n_blocks > std::numeric_limits<int32_t>::max()) {
    throw ProblemError("edge-based Jacobian storage: " + std::to_string(n_blocks) +
                       " off-diagonal blocks exceed the 32-bit storage index");
  }
  OffElementOrder out;
  out.element_slots.resize(p.n_terms());
  out.storage_of_block.assign(n_blocks, -1);
  int32_t next = 0;
  for (size_t ti = 0; ti < p.n_terms(); ++ti) {
    const Term& t = p.term(ti);
    if (t.energy) continue;
    const int k = t.elements.k;
    const std::vector<int64_t>& slots = pattern.element_slots(ti);
    std::vector<int64_t>& mine = out.element_slots[ti];
    mine = slots;
    const int64_t n = t.elements.size();
    for (int64_t e = 0; e < n; ++e) {
      for (const auto& rules : t.output_scatter) {
        for (const Scatter& r : rules) {
          for (int vb : t.input_vertex) {
            if (vb == r.vertex) continue;
            const size_t at = (e * k + r.vertex) * k + vb;
            const int64_t slot = slots[at];
            if (slot < 0 || out.storage_of_block[slot] >= 0) {
              throw ProblemError(
                  "edge-based Jacobian storage: kernel '" + t.kernel->name() + "', element " +
                  std::to_string(e) + " writes the block (node " +
                  std::to_string(t.elements.conn[e * k + r.vertex]) + ", node " +
                  std::to_string(t.elements.conn[e * k + vb]) +
                  ") that another element or term writes too; edge-based storage needs one "
                  "writer per off-diagonal block (use the storage by rows)");
            }
            out.storage_of_block[slot] = next;
            mine[at] = next++;
          }
        }
      }
    }
  }
  for (int64_t b = 0; b < n_blocks; ++b) {
    if (out.storage_of_block[b] < 0) {
      throw ProblemError("edge-based Jacobian storage: off-diagonal block " + std::to_string(b) +
                         " is written by no element's kernel");
    }
  }
  return out;
}

}  // namespace dualjit::assembly
