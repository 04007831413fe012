#include "backends/mesh/side_incidence.h"

#include <limits>
#include <string>

namespace dualjit::mesh {

SideIncidence build_side_incidence(int64_t n_nodes, const ElementSet& set,
                                   std::span<const int64_t> element_slots) {
  validate(set, n_nodes, /*allow_repeated_vertex=*/true);
  const int k = set.k;
  const int64_t n = set.size();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (n > kMax) {
    throw MeshError("element set '" + set.name + "': " + std::to_string(n) +
                    " elements do not fit the 32-bit indices of a side incidence");
  }
  if (!element_slots.empty() && static_cast<int64_t>(element_slots.size()) != n * k * k) {
    throw MeshError("element set '" + set.name + "': " + std::to_string(element_slots.size()) +
                    " element slots, expected " + std::to_string(n * k * k));
  }
  SideIncidence inc;
  inc.k = k;
  inc.n_nodes = n_nodes;
  inc.n_elements = n;
  inc.ptr.assign(k * (n_nodes + 1), 0);
  inc.element.resize(k * n);
  if (!element_slots.empty()) inc.slot.resize(k * n * (k - 1));
  for (int s = 0; s < k; ++s) {
    int64_t* ptr = inc.ptr.data() + s * (n_nodes + 1);
    for (int64_t e = 0; e < n; ++e) ++ptr[set.conn[e * k + s] + 1];
    ptr[0] = s * n;
    for (int64_t v = 0; v < n_nodes; ++v) ptr[v + 1] += ptr[v];
    // A stable counting sort by node: each node's entries stay in element order.
    std::vector<int64_t> cursor(ptr, ptr + n_nodes);
    for (int64_t e = 0; e < n; ++e) {
      const int64_t p = cursor[set.conn[e * k + s]]++;
      inc.element[p] = static_cast<int32_t>(e);
      if (element_slots.empty()) continue;
      for (int t = 0, j = 0; t < k; ++t) {
        if (t == s) continue;
        const int64_t slot = element_slots[(e * k + t) * k + s];
        if (slot > kMax) {
          throw MeshError("element set '" + set.name + "': element " + std::to_string(e) +
                          " writes off-diagonal block " + std::to_string(slot) +
                          ", beyond 32-bit indices");
        }
        inc.slot[p * (k - 1) + j++] = static_cast<int32_t>(slot);
      }
    }
  }
  return inc;
}

std::vector<int64_t> node_blocks(const SideIncidence& inc, int tile, int max_nodes,
                                 bool every_node) {
  if (tile < 1 || max_nodes < 1) {
    throw MeshError("node_blocks: tile " + std::to_string(tile) + " and max_nodes " +
                    std::to_string(max_nodes) + " must be positive");
  }
  std::vector<int64_t> blocks;
  const int64_t n = inc.n_nodes;
  const auto count = [&](int64_t first, int64_t last, int s) {  // side s entries of [first, last)
    const auto ptr = inc.side_ptr(s);
    return ptr[last] - ptr[first];
  };
  const auto fits = [&](int64_t first, int64_t last) {
    for (int s = 0; s < inc.k; ++s) {
      if (count(first, last, s) > tile) return false;
    }
    return true;
  };
  const auto empty = [&](int64_t node) {
    for (int s = 0; s < inc.k; ++s) {
      if (count(node, node + 1, s) > 0) return false;
    }
    return true;
  };
  for (int64_t first = 0; first < n;) {
    if (!every_node && empty(first)) {
      ++first;
      continue;
    }
    int64_t last = first + 1;  // at least one node, however many entries it has
    while (last < n && last - first < max_nodes && (every_node || !empty(last)) &&
           fits(first, last + 1)) {
      ++last;
    }
    blocks.push_back(first);
    blocks.push_back(last);
    first = last;
  }
  return blocks;
}

}  // namespace dualjit::mesh
