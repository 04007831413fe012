#include "backends/distributed/mpi/rank_device.h"

#include "backends/cuda/driver.h"

namespace dualjit::distributed {

int select_rank_device(const Communicator& comm) {
  MPI_Comm host;
  check_mpi(
      MPI_Comm_split_type(comm.comm(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &host),
      "MPI_Comm_split_type");
  int local = 0;
  MPI_Comm_rank(host, &local);
  MPI_Comm_free(&host);
  if (!cuda::driver_available()) return -1;
  const int n = static_cast<int>(cuda::devices().size());
  if (n == 0) return -1;
  cuda::select_device(local % n);
  return local % n;
}

}  // namespace dualjit::distributed
