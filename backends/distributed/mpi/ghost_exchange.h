// Ghost-state exchange between the ranks of a partition (rank_problem.h): each rank asks the
// owner of each of its ghost nodes once, at construction; update() then sends every owner's
// values to the ranks that hold them as ghosts, point to point between neighbours only. Host
// memory: a GPU rank stages its state through the host (the state is n_nodes x block doubles,
// the ghosts a surface's worth of it).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backends/distributed/mpi/communicator.h"
#include "backends/distributed/rank_problem.h"

namespace dualjit::distributed {

class GhostExchange {
 public:
  // Collective over comm, whose ranks are the layout's (rank r holds layout.rank == r).
  // Inconsistent ghost maps are detected here and raised on every rank (DistributedError): a
  // rank asked for a node it does not own, a layout whose rank is not its rank in comm, or a
  // ghost owner outside the communicator, each naming the ranks and the global node.
  GhostExchange(const Communicator& comm, const RankLayout& layout);

  // Collective: values (n_local x block, local numbering) get their ghost rows from the
  // owners' owned rows. Throws std::invalid_argument on a size mismatch.
  void update(std::span<double> values, int block) const;

  int neighbours() const { return static_cast<int>(peers_.size()); }
  int64_t nodes_sent() const;      // per update, over all neighbours
  int64_t nodes_received() const;  // = the layout's ghosts

 private:
  struct Peer {
    int rank = 0;
    std::vector<int32_t> send;  // local owned nodes sent to it, in its ghosts' order
    std::vector<int32_t> recv;  // local ghost nodes it fills
  };
  Communicator comm_;
  int64_t n_local_ = 0;
  std::vector<Peer> peers_;
};

}  // namespace dualjit::distributed
