// One GPU per rank: the ranks on one host take its GPUs in turn (local rank modulo the GPU
// count), before their first launch.
#pragma once

#include "backends/distributed/mpi/communicator.h"

namespace dualjit::distributed {

// Collective over comm. Returns the ordinal selected for this rank (cuda::select_device), or
// -1 when there is no usable GPU (the ranks then run on the CPU backend).
int select_rank_device(const Communicator& comm);

}  // namespace dualjit::distributed
