// Internal: the node adjacency implied by element sets, shared by BlockPattern and reorderings.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/mesh/element_set.h"

namespace dualjit::mesh::detail {

struct NodeGraph {
  std::vector<int64_t> row_ptr;  // n_nodes + 1
  std::vector<int32_t> col_idx;  // sorted, unique per row
  std::vector<int64_t> diag;     // block index of (r, r) per row; empty without diagonal
};

// Row r holds every c != r such that r and c are vertices of a common element (with upper only
// c > r) and, with diagonal, r itself (isolated nodes included). Validates the sets (repeated
// vertices allowed) and that node indices fit int32.
//
// With slots, (*slots)[s] gets n_elements * k * k entries: for element e and local pair (a, b),
// the block index of (v_a, v_b), or of (min, max) with upper; a pair with v_a == v_b gets its
// diagonal block, or -1 - v_a without diagonal.
//
// Cost: a two-level counting sort of the couplings by row (coarse buckets, then rows within a
// bucket, in cache) and a sort of each short row. Slots ride along as pointers and are written
// when their row is sorted, so no per-pair search runs: on large unordered meshes dependent cache
// misses, not arithmetic, dominate.
NodeGraph node_graph(int64_t n_nodes, const std::vector<const ElementSet*>& sets, bool upper,
                     bool diagonal, std::vector<std::vector<int64_t>>* slots = nullptr);

}  // namespace dualjit::mesh::detail
