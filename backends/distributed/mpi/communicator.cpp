#include "backends/distributed/mpi/communicator.h"

#include <vector>

namespace dualjit::distributed {

void check_mpi(int err, const char* call) {
  if (err == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(err, text, &len);
  throw std::runtime_error(std::string(call) + " failed: " + std::string(text, len));
}

Communicator::Communicator(MPI_Comm comm) : comm_(comm) {
  check_mpi(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
}

double Communicator::sum(double x) const {
  double out = 0;
  check_mpi(MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
  return out;
}

int64_t Communicator::sum(int64_t x) const {
  int64_t out = 0;
  check_mpi(MPI_Allreduce(&x, &out, 1, MPI_INT64_T, MPI_SUM, comm_), "MPI_Allreduce");
  return out;
}

double Communicator::max(double x) const {
  double out = 0;
  check_mpi(MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
  return out;
}

bool Communicator::all(bool x) const {
  int in = x ? 1 : 0, out = 0;
  check_mpi(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
  return out == 1;
}

void Communicator::raise_on_all(const std::string& message) const {
  int mine = message.empty() ? size_ : rank_, first = size_;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
  if (first == size_) return;
  int64_t len = static_cast<int64_t>(message.size());
  check_mpi(MPI_Bcast(&len, 1, MPI_INT64_T, first, comm_), "MPI_Bcast");
  std::vector<char> text(message.begin(), message.end());
  text.resize(len);
  check_mpi(MPI_Bcast(text.data(), static_cast<int>(len), MPI_CHAR, first, comm_), "MPI_Bcast");
  throw DistributedError("rank " + std::to_string(first) + ": " +
                         std::string(text.begin(), text.end()));
}

}  // namespace dualjit::distributed
