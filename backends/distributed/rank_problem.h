// A rank's share of a Problem over a node partition (partition.h): its nodes, numbered locally
// (the nodes it owns, ascending, then the ghost nodes its elements touch, ascending, each with
// its owner), and the problem's terms restricted to the elements with an owned vertex. The
// residual, gradient, Jacobian and Hessian rows of the owned nodes assembled from it equal the
// global problem's rows (the same elements in the same order); ghost rows are partial and are
// dropped. The energy of a rank's problem counts shared elements on each rank that holds them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backends/assembly/problem.h"
#include "backends/distributed/partition.h"

namespace dualjit::distributed {

struct RankLayout {
  int rank = 0;
  int64_t n_owned = 0;
  std::vector<int32_t> global;       // local node -> global node
  std::vector<int32_t> ghost_owner;  // per ghost, local node n_owned + g
  int64_t n_local() const { return static_cast<int64_t>(global.size()); }
  int64_t n_ghosts() const { return n_local() - n_owned; }
};

// The element sets of a problem's terms, in term order: the node graph partition_nodes splits
// and the elements rank_layout follows.
std::vector<const mesh::ElementSet*> element_sets(const assembly::Problem& p);

// The rank's nodes under the partition: owned, then the ghosts that the elements of `sets`
// with an owned vertex touch. Throws mesh::MeshError for a rank outside the partition.
RankLayout rank_layout(const NodePartition& p, int rank,
                       const std::vector<const mesh::ElementSet*>& sets);

// Checks a layout against its partition: owned nodes owned by the rank, ghosts owned by the
// rank named for them and by another rank, no node twice, numbering ascending in each part.
// Throws mesh::MeshError naming the rank and the first bad local and global node.
void check_layout(const RankLayout& layout, const NodePartition& p);

struct RankProblem {
  RankLayout layout;
  assembly::Problem problem;
  // Per term: the global index of each of its local elements.
  std::vector<std::vector<int64_t>> elements;
};

// The rank's share of `global` (its terms' element sets, params with them). Throws
// mesh::MeshError as rank_layout does.
RankProblem rank_problem(const assembly::Problem& global, const NodePartition& p, int rank);

// The part of a rank's problem that counts each element of the global problem once over the
// ranks: its terms restricted to the elements whose first vertex the rank owns (every element
// with an owned vertex is in the rank's problem, so the owner of vertex 0 holds it), over the
// same local nodes. The energies of the ranks' shares sum to the global energy (to round-off:
// the sums' order differs); its other outputs are not rows of anything.
assembly::Problem energy_share(const RankProblem& rp);

// The values of a node field (n_nodes x block, global numbering) at the layout's local nodes.
std::vector<double> local_values(const RankLayout& layout, std::span<const double> global,
                                 int block);

}  // namespace dualjit::distributed
