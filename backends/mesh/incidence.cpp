#include "backends/mesh/incidence.h"

#include <algorithm>
#include <limits>
#include <string>

namespace dualjit::mesh {

Incidence build_incidence(int64_t n_nodes, const ElementSet& set) {
  validate(set, n_nodes, /*allow_repeated_vertex=*/true);
  if (set.k > 127) {
    throw MeshError("element set '" + set.name + "': k = " + std::to_string(set.k) +
                    " does not fit the int8 local vertex of an incidence");
  }
  if (set.size() > std::numeric_limits<int32_t>::max()) {
    throw MeshError("element set '" + set.name + "': " + std::to_string(set.size()) +
                    " elements do not fit the int32 element index of an incidence");
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
      inc.element[at] = static_cast<int32_t>(i / k);
      inc.local_vertex[at] = static_cast<int8_t>(i % k);
    }
  }
  return inc;
}

std::vector<int32_t> incidence_other_nodes(const Incidence& inc, const ElementSet& set) {
  const int k = set.k;
  std::vector<int32_t> nodes(inc.element.size() * (k - 1));
  for (size_t at = 0; at < inc.element.size(); ++at) {
    const int32_t* row = set.conn.data() + int64_t(inc.element[at]) * k;
    int32_t* out = nodes.data() + at * (k - 1);
    for (int v = 0; v < k; ++v) {
      if (v != inc.local_vertex[at]) *out++ = row[v];
    }
  }
  return nodes;
}

std::vector<uint32_t> incidence_side_offsets(const Incidence& inc, const ElementSet& set) {
  const int k = set.k;
  const int64_t n = inc.n_nodes();
  const int64_t entries = n > 0 ? inc.ptr[n] : 0;
  if (entries > int64_t(std::numeric_limits<uint32_t>::max())) {
    throw MeshError("element set '" + set.name + "': " + std::to_string(entries) +
                    " element ends do not fit the 32-bit offsets of its incidence by local vertex");
  }
  std::vector<uint32_t> side(size_t(n) * k + 1);
  for (int64_t node = 0; node < n; ++node) {
    int64_t q = inc.ptr[node];
    for (int v = 0; v < k; ++v) {
      side[size_t(node) * k + v] = static_cast<uint32_t>(q);
      while (q < inc.ptr[node + 1] && inc.local_vertex[q] == v) ++q;
    }
    if (q != inc.ptr[node + 1])
      throw MeshError("element set '" + set.name + "': the incidence of node " +
                      std::to_string(node) + " is not ordered by local vertex");
  }
  side[size_t(n) * k] = static_cast<uint32_t>(entries);
  return side;
}

std::vector<int32_t> nodes_with_elements(const Incidence& inc) {
  std::vector<int32_t> nodes;
  for (int64_t n = 0; n < inc.n_nodes(); ++n) {
    if (inc.degree(n) > 0) nodes.push_back(static_cast<int32_t>(n));
  }
  if (static_cast<int64_t>(nodes.size()) == inc.n_nodes()) nodes.clear();
  return nodes;
}

}  // namespace dualjit::mesh
