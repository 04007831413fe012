// Node -> element incidence, for atomic-free gather-by-column assembly.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/mesh/element_set.h"

namespace dualjit::mesh {

// CSR over nodes: the occurrences of node n in the set are entries [ptr[n], ptr[n+1]), each an
// (element, local vertex) pair, sorted by local vertex ("side") then element. Every (element,
// local vertex) of the set appears exactly once, so a per-node gather writes each output once;
// the side-major order is the summation order of the deterministic assembly (per side, then
// side by side: backends/assembly/strategies/gather_by_column.cpp), the same on every backend
// and launch layout.
struct Incidence {
  std::vector<int64_t> ptr;          // n_nodes + 1
  std::vector<int32_t> element;      // n_elements * k
  std::vector<int8_t> local_vertex;  // n_elements * k

  int64_t n_nodes() const { return ptr.empty() ? 0 : static_cast<int64_t>(ptr.size()) - 1; }
  int64_t degree(int64_t node) const { return ptr[node + 1] - ptr[node]; }
};

// Builds the incidence of one set by a counting sort (O(n_nodes + n_elements * k)). Validates the
// set (repeated vertices allowed) and requires k <= 127 so that local vertices fit int8, and
// fewer than 2^31 elements so that they fit int32.
Incidence build_incidence(int64_t n_nodes, const ElementSet& set);

// The connectivity in incidence order, less the node itself: entry i's element's other k - 1
// nodes, in local order without local vertex local_vertex[i], at [i*(k-1), (i+1)*(k-1)). A
// gather then reads each node's elements' nodes contiguously, instead of one scattered
// connectivity row (a 32-byte sector for k indices) per incident element, and does not read
// the node it already knows (for edges, half the indices).
std::vector<int32_t> incidence_other_nodes(const Incidence& inc, const ElementSet& set);

// Each node's entries split by local vertex, for a gather that must know an entry's local vertex
// without reading it: [side[n*k + v], side[n*k + v + 1]) are node n's entries at local vertex v
// (the incidence is side-major per node), and side[n*k + k] = side[(n+1)*k]; n_nodes * k + 1
// offsets. As 32-bit offsets they cost 4k bytes a node where ptr and local_vertex cost 8 plus a
// byte per entry (edges: 8 against 14 bytes a node, and no load per entry). Throws MeshError
// naming the set when it has 2^32 or more element ends.
std::vector<uint32_t> incidence_side_offsets(const Incidence& inc, const ElementSet& set);

// The nodes that some element touches, ascending; empty when every node is touched. A gather
// that adds into rows other terms have written visits only these (a term on the boundary
// touches few of a mesh's nodes).
std::vector<int32_t> nodes_with_elements(const Incidence& inc);

}  // namespace dualjit::mesh
