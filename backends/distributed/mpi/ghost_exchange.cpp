#include "backends/distributed/mpi/ghost_exchange.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dualjit::distributed {

GhostExchange::GhostExchange(const Communicator& comm, const RankLayout& layout)
    : comm_(comm), n_local_(layout.n_local()) {
  const int size = comm.size();
  std::string error;
  if (layout.rank != comm.rank()) error = "holds the layout of rank " + std::to_string(layout.rank);
  // Each ghost's request to its owner: the global node.
  std::vector<std::vector<int32_t>> asks(size), fills(size);
  for (int64_t g = 0; g < layout.n_ghosts() && error.empty(); ++g) {
    const int owner = layout.ghost_owner[g];
    const int64_t local = layout.n_owned + g;
    if (owner < 0 || owner >= size || owner == comm.rank()) {
      error = "ghost global node " + std::to_string(layout.global[local]) + " is said to be " +
              "owned by rank " + std::to_string(owner) + " of " + std::to_string(size);
      break;
    }
    asks[owner].push_back(layout.global[local]);
    fills[owner].push_back(static_cast<int32_t>(local));
  }
  comm.raise_on_all(error);

  std::vector<int> ask_counts(size), asked_counts(size);
  for (int r = 0; r < size; ++r) ask_counts[r] = static_cast<int>(asks[r].size());
  check_mpi(
      MPI_Alltoall(ask_counts.data(), 1, MPI_INT, asked_counts.data(), 1, MPI_INT, comm.comm()),
      "MPI_Alltoall");
  std::vector<int> ask_offsets(size + 1, 0), asked_offsets(size + 1, 0);
  for (int r = 0; r < size; ++r) {
    ask_offsets[r + 1] = ask_offsets[r] + ask_counts[r];
    asked_offsets[r + 1] = asked_offsets[r] + asked_counts[r];
  }
  std::vector<int32_t> ask_flat(ask_offsets[size]), asked_flat(asked_offsets[size]);
  for (int r = 0; r < size; ++r)
    std::copy(asks[r].begin(), asks[r].end(), &ask_flat[ask_offsets[r]]);
  check_mpi(MPI_Alltoallv(ask_flat.data(), ask_counts.data(), ask_offsets.data(), MPI_INT32_T,
                          asked_flat.data(), asked_counts.data(), asked_offsets.data(), MPI_INT32_T,
                          comm.comm()),
            "MPI_Alltoallv");

  // The owner's side: each asked node must be one of ours (owned nodes ascend globally).
  const auto owned_begin = layout.global.begin();
  const auto owned_end = layout.global.begin() + layout.n_owned;
  for (int r = 0; r < size; ++r) {
    if (asks[r].empty() && asked_counts[r] == 0) continue;
    Peer peer;
    peer.rank = r;
    peer.recv = std::move(fills[r]);
    for (int k = asked_offsets[r]; k < asked_offsets[r + 1]; ++k) {
      const int32_t g = asked_flat[k];
      const auto it = std::lower_bound(owned_begin, owned_end, g);
      if (it == owned_end || *it != g) {
        if (error.empty())
          error = "rank " + std::to_string(r) + " asks it for global node " + std::to_string(g) +
                  " as the node's owner, but it does not own that node (inconsistent ghost maps)";
        continue;
      }
      peer.send.push_back(static_cast<int32_t>(it - owned_begin));
    }
    peers_.push_back(std::move(peer));
  }
  comm.raise_on_all(error);
}

void GhostExchange::update(std::span<double> values, int block) const {
  if (block < 1 || static_cast<int64_t>(values.size()) != n_local_ * block)
    throw std::invalid_argument("GhostExchange::update: " + std::to_string(values.size()) +
                                " values for " + std::to_string(n_local_) + " local nodes of " +
                                std::to_string(block));
  std::vector<std::vector<double>> out(peers_.size()), in(peers_.size());
  std::vector<MPI_Request> requests;
  requests.reserve(2 * peers_.size());
  for (size_t p = 0; p < peers_.size(); ++p) {
    const Peer& peer = peers_[p];
    in[p].resize(peer.recv.size() * block);
    if (!peer.recv.empty()) {
      requests.emplace_back();
      check_mpi(MPI_Irecv(in[p].data(), static_cast<int>(in[p].size()), MPI_DOUBLE, peer.rank, 0,
                          comm_.comm(), &requests.back()),
                "MPI_Irecv");
    }
  }
  for (size_t p = 0; p < peers_.size(); ++p) {
    const Peer& peer = peers_[p];
    out[p].resize(peer.send.size() * block);
    for (size_t k = 0; k < peer.send.size(); ++k)
      std::copy_n(&values[int64_t(peer.send[k]) * block], block, &out[p][k * block]);
    if (!peer.send.empty()) {
      requests.emplace_back();
      check_mpi(MPI_Isend(out[p].data(), static_cast<int>(out[p].size()), MPI_DOUBLE, peer.rank, 0,
                          comm_.comm(), &requests.back()),
                "MPI_Isend");
    }
  }
  check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
  for (size_t p = 0; p < peers_.size(); ++p) {
    const Peer& peer = peers_[p];
    for (size_t k = 0; k < peer.recv.size(); ++k)
      std::copy_n(&in[p][k * block], block, &values[int64_t(peer.recv[k]) * block]);
  }
}

int64_t GhostExchange::nodes_sent() const {
  int64_t n = 0;
  for (const Peer& p : peers_) n += static_cast<int64_t>(p.send.size());
  return n;
}

int64_t GhostExchange::nodes_received() const {
  int64_t n = 0;
  for (const Peer& p : peers_) n += static_cast<int64_t>(p.recv.size());
  return n;
}

}  // namespace dualjit::distributed
