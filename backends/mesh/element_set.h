// Element sets: the connectivity every assembly structure is derived from.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dualjit::mesh {

// Thrown for malformed connectivity or structures that do not fit each other; the message names
// the element set and the first offending element or value.
class MeshError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An element set: n_elements x k vertex indices, element-major. Edges (k = 2), triangles (3),
// tetrahedra (4) and single cells (k = 1) are all the same thing.
struct ElementSet {
  std::string name;
  int k = 0;                  // vertices per element
  std::vector<int32_t> conn;  // n_elements * k node indices, element e at [e*k, e*k+k)

  // Number of elements (0 when k is not positive).
  int64_t size() const;
  int32_t vertex(int64_t element, int local) const { return conn[element * k + local]; }
};

// Checks k >= 1, conn.size() a multiple of k, every index in [0, n_nodes) and, unless allowed, no
// vertex repeated within an element. Throws MeshError naming the set, the first offending element
// and the offending value. Empty sets are valid.
void validate(const ElementSet& set, int64_t n_nodes, bool allow_repeated_vertex = false);

}  // namespace dualjit::mesh
