// The few collective operations the distributed layers need, over an MPI communicator that
// the caller owns (MPI_COMM_WORLD, or PETSC_COMM_WORLD). Failures are exceptions naming the
// MPI call; errors that one rank detects are raised on every rank (raise_on_all), so that a
// bad input never leaves the others waiting in a collective.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace dualjit::distributed {

// A failure raised on every rank: the message of the lowest failing rank, prefixed by it.
class DistributedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Communicator {
 public:
  explicit Communicator(MPI_Comm comm);
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  double sum(double x) const;
  int64_t sum(int64_t x) const;
  double max(double x) const;
  bool all(bool x) const;  // whether x holds on every rank

  // Collective: when any rank passes a non-empty message, every rank throws DistributedError
  // with the message of the lowest such rank, prefixed by that rank's number ("rank 2: ...").
  void raise_on_all(const std::string& message) const;

  // Collective: runs `local` (work without collectives) on each rank; when it throws on any
  // rank, every rank throws as raise_on_all does, with what() of the exception.
  template <class F>
  void run_on_all(F&& local) const {
    std::string error;
    try {
      local();
    } catch (const std::exception& e) {
      error = e.what();
      if (error.empty()) error = "failed";
    }
    raise_on_all(error);
  }

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

// Throws std::runtime_error naming `call` and MPI's error string when err is not MPI_SUCCESS.
void check_mpi(int err, const char* call);

}  // namespace dualjit::distributed
