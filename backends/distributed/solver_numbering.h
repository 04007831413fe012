// The numbering distributed solvers (PETSc) want: each rank's owned nodes contiguous, rank r's
// numbered first[r], first[r] + 1, ... in its layout's order (ascending global node). Every
// rank computes it from the partition alone, so no communication is needed to know a ghost's
// number.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/distributed/partition.h"
#include "backends/distributed/rank_problem.h"

namespace dualjit::distributed {

struct SolverNumbering {
  std::vector<int64_t> first;    // n_parts + 1: rank r numbers [first[r], first[r + 1])
  std::vector<int64_t> of_node;  // global node -> its solver number
};

SolverNumbering solver_numbering(const NodePartition& p);

// The solver number of each of the layout's local nodes (owned ones first[rank], first[rank]
// + 1, ...). Throws mesh::MeshError when the layout does not fit the numbering's partition.
std::vector<int64_t> local_solver_numbers(const RankLayout& layout, const SolverNumbering& n);

}  // namespace dualjit::distributed
