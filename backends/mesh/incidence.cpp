#include "backends/mesh/incidence.h"

#include <algorithm>
#include <string>

namespace dualjit::mesh {

Incidence build_incidence(int64_t n_nodes, const ElementSet& set) {
  validate(set, n_nodes, /*allow_repeated_vertex=*/true);
  if (set.k > 127) {
    throw MeshError("element set '" + set.name + "': k = " + std::to_string(set.k) +
                    " does not fit the int8 local vertex of an incidence");
  }
  Incidence inc;
  inc.ptr.assign(n_nodes + 1, 0);
  for (int32_t v : set.conn) ++inc.ptr[v + 1];
  for (int64_t n = 0; n < n_nodes; ++n) inc.ptr[n + 1] += inc.ptr[n];

  // A stable counting sort by node, in two levels as in the block pattern: occurrences are first
  // streamed to coarse buckets of nodes, then placed within each bucket while it sits in cache.
  // Occurrences are scanned local vertex by local vertex, each in element order, so stability
  // leaves each node's entries sorted by local vertex, then element, with no comparison sort.
  const int64_t total = static_cast<int64_t>(set.conn.size());
  const int k = set.k;
  constexpr int kShift = 10;
  const int64_t n_buckets = (n_nodes >> kShift) + 1;
  std::vector<int64_t> cursor(n_buckets);
  for (int64_t b = 0; b < n_buckets; ++b) cursor[b] = inc.ptr[std::min(b << kShift, n_nodes)];
  // Each entry packs the occurrence index i = e*k + a with the node's offset in its bucket, so the
  // second level never goes back to the (uncached) connectivity.
  std::vector<uint64_t> coarse(total);
  const uint64_t mask = (uint64_t(1) << kShift) - 1;
  for (int a = 0; a < k; ++a) {
    for (int64_t i = a; i < total; i += k) {
      const int32_t v = set.conn[i];
      coarse[cursor[v >> kShift]++] = (static_cast<uint64_t>(i) << kShift) | (v & mask);
    }
  }

  inc.element.resize(total);
  inc.local_vertex.resize(total);
  std::vector<int64_t> node_cursor(inc.ptr.begin(), inc.ptr.end() - 1);
  for (int64_t b = 0, x = 0; b < n_buckets; ++b) {
    const int64_t bucket_end = inc.ptr[std::min((b + 1) << kShift, n_nodes)];
    for (; x < bucket_end; ++x) {
      const int64_t i = static_cast<int64_t>(coarse[x] >> kShift);
      const int64_t at = node_cursor[(b << kShift) + static_cast<int64_t>(coarse[x] & mask)]++;
      inc.element[at] = i / k;
      inc.local_vertex[at] = static_cast<int8_t>(i % k);
    }
  }
  return inc;
}

std::vector<int32_t> incidence_nodes(const Incidence& inc, const ElementSet& set) {
  const int k = set.k;
  std::vector<int32_t> nodes(inc.element.size() * k);
  for (size_t at = 0; at < inc.element.size(); ++at) {
    std::copy_n(set.conn.begin() + inc.element[at] * k, k, nodes.begin() + at * k);
  }
  return nodes;
}

}  // namespace dualjit::mesh
