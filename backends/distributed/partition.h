// The nodes of a mesh split over ranks: METIS's k-way partition of the node graph that element
// sets imply (two nodes are neighbours when an element holds both), each node owned by one rank.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/mesh/element_set.h"

namespace dualjit::distributed {

struct NodePartition {
  int n_parts = 1;
  std::vector<int32_t> owner;  // per node: the rank that owns it, in [0, n_parts)
  // Per rank: the number of nodes it owns.
  std::vector<int64_t> owned_counts() const;
};

// METIS_PartGraphKway with a fixed seed (the same partition on every rank and run); one part
// owns everything. Throws mesh::MeshError for n_parts < 1, more parts than nodes, a part left
// empty, or METIS's failure, naming the count.
NodePartition partition_nodes(int64_t n_nodes, const std::vector<const mesh::ElementSet*>& sets,
                              int n_parts);

// Checks a partition from elsewhere (read from a file, another partitioner): one owner in range
// per node and no empty part. Throws mesh::MeshError naming the first bad node or part.
void check_partition(const NodePartition& p, int64_t n_nodes);

}  // namespace dualjit::distributed
