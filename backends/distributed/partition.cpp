#include "backends/distributed/partition.h"

#include <metis.h>

#include <string>

#include "backends/mesh/node_graph.h"

namespace dualjit::distributed {

std::vector<int64_t> NodePartition::owned_counts() const {
  std::vector<int64_t> counts(n_parts, 0);
  for (int32_t o : owner)
    if (o >= 0 && o < n_parts) ++counts[o];
  return counts;
}

void check_partition(const NodePartition& p, int64_t n_nodes) {
  if (p.n_parts < 1) throw mesh::MeshError("partition: " + std::to_string(p.n_parts) + " parts");
  if (static_cast<int64_t>(p.owner.size()) != n_nodes) {
    throw mesh::MeshError("partition: " + std::to_string(p.owner.size()) + " owners for " +
                          std::to_string(n_nodes) + " nodes");
  }
  for (int64_t i = 0; i < n_nodes; ++i) {
    if (p.owner[i] < 0 || p.owner[i] >= p.n_parts) {
      throw mesh::MeshError("partition: node " + std::to_string(i) + " has owner " +
                            std::to_string(p.owner[i]) + ", outside [0, " +
                            std::to_string(p.n_parts) + ")");
    }
  }
  const std::vector<int64_t> counts = p.owned_counts();
  for (int r = 0; r < p.n_parts; ++r) {
    if (counts[r] == 0)
      throw mesh::MeshError("partition: rank " + std::to_string(r) + " owns no node");
  }
}

NodePartition partition_nodes(int64_t n_nodes, const std::vector<const mesh::ElementSet*>& sets,
                              int n_parts) {
  if (n_parts < 1 || n_parts > n_nodes) {
    throw mesh::MeshError("partition_nodes: " + std::to_string(n_parts) + " parts for " +
                          std::to_string(n_nodes) + " nodes");
  }
  NodePartition p;
  p.n_parts = n_parts;
  p.owner.assign(n_nodes, 0);
  if (n_parts == 1) return p;
  const mesh::detail::NodeGraph g =
      mesh::detail::node_graph(n_nodes, sets, /*upper=*/false, /*diagonal=*/false);
  std::vector<idx_t> xadj(g.row_ptr.begin(), g.row_ptr.end());
  std::vector<idx_t> adjncy(g.col_idx.begin(), g.col_idx.end());
  idx_t n = static_cast<idx_t>(n_nodes), constraints = 1, parts = n_parts, cut = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;
  std::vector<idx_t> part(n_nodes);
  const int status =
      METIS_PartGraphKway(&n, &constraints, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr,
                          &parts, nullptr, nullptr, options, &cut, part.data());
  if (status != METIS_OK) {
    throw mesh::MeshError("partition_nodes: METIS_PartGraphKway failed (status " +
                          std::to_string(status) + ") for " + std::to_string(n_parts) +
                          " parts of " + std::to_string(n_nodes) + " nodes");
  }
  for (int64_t i = 0; i < n_nodes; ++i) p.owner[i] = static_cast<int32_t>(part[i]);
  check_partition(p, n_nodes);
  return p;
}

}  // namespace dualjit::distributed
