#include "backends/distributed/solver_numbering.h"

#include <string>

namespace dualjit::distributed {

SolverNumbering solver_numbering(const NodePartition& p) {
  SolverNumbering n;
  n.first.assign(p.n_parts + 1, 0);
  for (int32_t r : p.owner) ++n.first[r + 1];
  for (int r = 0; r < p.n_parts; ++r) n.first[r + 1] += n.first[r];
  std::vector<int64_t> next(n.first.begin(), n.first.end() - 1);
  n.of_node.resize(p.owner.size());
  for (size_t g = 0; g < p.owner.size(); ++g) n.of_node[g] = next[p.owner[g]]++;
  return n;
}

std::vector<int64_t> local_solver_numbers(const RankLayout& layout, const SolverNumbering& n) {
  const int64_t n_nodes = static_cast<int64_t>(n.of_node.size());
  if (layout.rank < 0 || layout.rank + 1 >= static_cast<int64_t>(n.first.size()) ||
      n.first[layout.rank + 1] - n.first[layout.rank] != layout.n_owned) {
    throw mesh::MeshError("rank " + std::to_string(layout.rank) + ": a layout of " +
                          std::to_string(layout.n_owned) +
                          " owned nodes does not fit the solver numbering");
  }
  std::vector<int64_t> out(layout.n_local());
  for (int64_t i = 0; i < layout.n_local(); ++i) {
    const int32_t g = layout.global[i];
    if (g < 0 || g >= n_nodes)
      throw mesh::MeshError("rank " + std::to_string(layout.rank) + ": local node " +
                            std::to_string(i) + " is global node " + std::to_string(g) + " of " +
                            std::to_string(n_nodes));
    out[i] = n.of_node[g];
    if (i < layout.n_owned && out[i] != n.first[layout.rank] + i)
      throw mesh::MeshError("rank " + std::to_string(layout.rank) + ": owned local node " +
                            std::to_string(i) + " (global " + std::to_string(g) +
                            ") is not the rank's own in the solver numbering");
  }
  return out;
}

}  // namespace dualjit::distributed
