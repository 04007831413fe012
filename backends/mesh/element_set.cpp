#include "backends/mesh/element_set.h"

#include <string>

namespace dualjit::mesh {

int64_t ElementSet::size() const {
  return k > 0 ? static_cast<int64_t>(conn.size()) / k : 0;
}

namespace {

[[noreturn]] void fail(const ElementSet& set, const std::string& what) {
  throw MeshError("element set '" + set.name + "': " + what);
}

}  // namespace

void validate(const ElementSet& set, int64_t n_nodes, bool allow_repeated_vertex) {
  if (set.k < 1) fail(set, "k = " + std::to_string(set.k) + ", expected at least 1");
  if (n_nodes < 0) fail(set, "negative node count " + std::to_string(n_nodes));
  if (set.conn.size() % static_cast<size_t>(set.k) != 0) {
    fail(set, "connectivity size " + std::to_string(set.conn.size()) +
                  " is not a multiple of k = " + std::to_string(set.k) + " (element " +
                  std::to_string(set.conn.size() / set.k) + " is incomplete)");
  }
  const int64_t n = set.size();
  const int k = set.k;
  for (int64_t e = 0; e < n; ++e) {
    const int32_t* v = set.conn.data() + e * k;
    for (int a = 0; a < k; ++a) {
      if (v[a] < 0 || v[a] >= n_nodes) {
        fail(set, "element " + std::to_string(e) + " local vertex " + std::to_string(a) +
                      " has node index " + std::to_string(v[a]) +
                      (v[a] < 0 ? " (negative)" : " >= n_nodes = " + std::to_string(n_nodes)));
      }
    }
    if (allow_repeated_vertex) continue;
    // k is small (<= ~10), so the quadratic check beats any set structure.
    for (int a = 0; a < k; ++a) {
      for (int b = a + 1; b < k; ++b) {
        if (v[a] == v[b]) {
          fail(set, "element " + std::to_string(e) + " repeats node " + std::to_string(v[a]) +
                        " (local vertices " + std::to_string(a) + " and " + std::to_string(b) +
                        ")");
        }
      }
    }
  }
}

}  // namespace dualjit::mesh
