// A rank's share of a block-sparse operator on its GPU (uploaded once per matrix by set), for
// PETSc's KSP: a MATSHELL whose product, and a PCSHELL whose rank-local preconditioner, run as
// DeviceGmres's kernels (device_gmres.h), while PETSc runs the Krylov method over host vectors
// of the owned rows. Per product the owned rows go to the GPU once and come back once, the
// ghost rows through the host exchange (ghost_exchange.h): a vector is a few megabytes where
// the matrix is a hundred, so the product and the preconditioner, which read the matrix, are
// what move to the GPU. (Debian's PETSc has no CUDA types: this is how a GPU rank's linear
// algebra leaves the host. Its Krylov basis stays there: bench/RESULTS.md.)
//
// The preconditioner is the rank's own block: block Jacobi or multicoloured symmetric block
// Gauss-Seidel over its owned rows, the couplings to other ranks' nodes left out, as PETSc's
// block Jacobi over ranks leaves them.
#pragma once

#include <petscksp.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/driver.h"
#include "backends/distributed/mpi/ghost_exchange.h"
#include "backends/mesh/block_csr.h"
#include "solvers/device_gmres.h"

namespace dualjit::petsc {

class PetscDeviceOperator {
 public:
  // Collective over comm (the exchange's). n_owned of n_local nodes are the rank's, n_global
  // all ranks'; block the node field's width. Compiles (or loads) DeviceGmres's module.
  PetscDeviceOperator(MPI_Comm comm, const distributed::GhostExchange& ghosts, int64_t n_owned,
                      int64_t n_local, int block, int64_t n_global);
  ~PetscDeviceOperator();
  PetscDeviceOperator(const PetscDeviceOperator&) = delete;
  PetscDeviceOperator& operator=(const PetscDeviceOperator&) = delete;

  // The rank's matrix over its local pattern (owned rows first, full, diagonal inside): its
  // owned rows to the GPU with their ghost columns; the ghost rows (partial sums, rows of no
  // global matrix) as identity rows, which keeps the preconditioner to the owned block. Then
  // the preconditioner's set-up (DeviceGmres::set_matrix; its SolverError names the node).
  void set(const mesh::BlockCsr<double>& local, solvers::DevicePreconditioner preconditioner,
           int sweeps);

  // The shell operator, and ksp's operators and preconditioner set to it.
  ::Mat mat() const { return mat_; }
  void use_in(KSP ksp);

  // For PETSc's callbacks: y = A x and y = M^-1 x over the owned rows (host arrays).
  void multiply(const double* x, double* y);
  void precondition(const double* x, double* y);

 private:
  MPI_Comm comm_;
  const distributed::GhostExchange& ghosts_;
  int64_t n_owned_, n_local_;
  int block_;
  ::Mat mat_ = nullptr;
  std::unique_ptr<solvers::DeviceGmres> engine_;
  cuda::DeviceBuffer row_ptr_, col_idx_, values_, x_, y_;
  const mesh::BlockPattern* pattern_ = nullptr;
  std::vector<double> host_;  // n_local x block: a vector with its ghost rows
};

}  // namespace dualjit::petsc
