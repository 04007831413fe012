// Node -> element incidence split by the element's local vertex ("side"), and node blocks over
// it: the layout of the staged (node-owned) gather-by-column assembly on the GPU.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backends/mesh/element_set.h"

namespace dualjit::mesh {

// For each side s in [0, k): the elements whose vertex s is node n are entries
// [ptr[s * (n_nodes + 1) + n], ptr[s * (n_nodes + 1) + n + 1]) of `element`, in element order
// (side s occupies [s * n_elements, (s + 1) * n_elements)). A warp that runs entries of one side
// differentiates every element with respect to the same vertex, so it never diverges. With element
// slots given, slot[p * (k - 1) + j] is the off-diagonal block (vertex t, vertex s) that entry p
// writes in its node's column, t the j-th vertex other than s.
struct SideIncidence {
  int k = 0;
  int64_t n_nodes = 0, n_elements = 0;
  std::vector<int64_t> ptr;      // k * (n_nodes + 1), absolute offsets into `element`
  std::vector<int32_t> element;  // k * n_elements
  std::vector<int32_t> slot;     // k * n_elements * (k - 1), or empty

  std::span<const int64_t> side_ptr(int s) const {
    return {ptr.data() + s * (n_nodes + 1), static_cast<size_t>(n_nodes + 1)};
  }
};

// Validates the set (repeated vertices allowed: each occurrence is its own entry). `element_slots`
// (mesh::BlockPattern::element_slots: n_elements x k x k, -1 on the diagonal) may be empty.
// Throws MeshError naming the set when element or slot indices do not fit 32 bits.
SideIncidence build_side_incidence(int64_t n_nodes, const ElementSet& set,
                                   std::span<const int64_t> element_slots);

// Node ranges for blocks of `tile` threads: block b owns nodes [blocks[2b], blocks[2b + 1]),
// at most `max_nodes` of them and, on every side, at most `tile` entries, so one tile holds
// the block's elements of every side (a single node with more gets a block of its own and
// several tiles). every_node: the ranges partition [0, n_nodes) (a kernel that stores every
// node's rows); otherwise nodes with no element are left out (a kernel that adds).
std::vector<int64_t> node_blocks(const SideIncidence& inc, int tile, int max_nodes,
                                 bool every_node = true);

}  // namespace dualjit::mesh
