// Problems and partitions the MPI suites share: a rank's share of a global problem over a METIS
// partition in one part per rank of the communicator.
#pragma once

#include <mpi.h>

#include <vector>

#include "backends/assembly/problem.h"
#include "backends/distributed/partition.h"
#include "backends/distributed/rank_problem.h"

namespace dualjit::test {

inline int comm_rank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

inline int comm_size(MPI_Comm comm) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

// The partition of p's nodes in one part per rank of comm.
inline distributed::NodePartition partition_for(const assembly::Problem& p, MPI_Comm comm) {
  return distributed::partition_nodes(p.n_nodes(), distributed::element_sets(p), comm_size(comm));
}

}  // namespace dualjit::test
