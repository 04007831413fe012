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
  for (size_t ti = 0; ti < p.n_terms(); ++ti)
    if (!p.term(ti).energy) out.element_slots[ti] = pattern.element_slots(ti);
  int32_t next = 0;
  for_each_off_write(p, [&](size_t ti, int64_t e, size_t at) {
    const int64_t slot = pattern.element_slots(ti)[at];
    if (slot < 0 || out.storage_of_block[slot] >= 0) {
      const Term& t = p.term(ti);
      const int k = t.elements.k;
      const size_t a = at / k - size_t(e) * k, b = at % k;
      throw ProblemError("edge-based Jacobian storage: kernel '" + t.kernel->name() +
                         "', element " + std::to_string(e) + " writes the block (node " +
                         std::to_string(t.elements.conn[e * k + a]) + ", node " +
                         std::to_string(t.elements.conn[e * k + b]) +
                         ") that another element or term writes too; edge-based storage needs "
                         "one writer per off-diagonal block (use the storage by rows)");
    }
    out.storage_of_block[slot] = next;
    out.element_slots[ti][at] = next++;
    return true;
  });
  for (int64_t b = 0; b < n_blocks; ++b) {
    if (out.storage_of_block[b] < 0) {
      throw ProblemError("edge-based Jacobian storage: off-diagonal block " + std::to_string(b) +
                         " is written by no element's kernel");
    }
  }
  return out;
}

}  // namespace dualjit::assembly
