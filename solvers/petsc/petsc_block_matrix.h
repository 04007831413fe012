// A distributed block-sparse matrix (a Jacobian or a full Hessian) handed to PETSc as MATMPIBAIJ
// with the node field's width as block size: each rank sets the block rows of the nodes it owns,
// from the matrix its own Assembler produced over its share of the problem (rank_problem.h), in
// the solver numbering (solver_numbering.h). The pattern is preallocated exactly, once (each
// owned row's blocks split into those of owned columns and the rest); values then go in one
// MatSetValuesBlocked call per block row, never per entry, and only to owned rows, so PETSc's
// assembly moves nothing between ranks.
#pragma once

#include <petscmat.h>

#include <cstdint>
#include <span>
#include <vector>

#include "backends/mesh/block_csr.h"
#include "backends/mesh/block_pattern.h"

namespace dualjit::petsc {

class PetscBlockMatrix {
 public:
  // Collective over comm. pattern: the rank's (local numbering, diagonal blocks inside, full
  // rather than upper), its first n_owned rows the owned ones; numbers: each local node's solver
  // number (local_solver_numbers); n_global: the nodes of all ranks. Throws
  // std::invalid_argument for sizes that disagree or an owned number outside the rank's range.
  PetscBlockMatrix(MPI_Comm comm, const mesh::BlockPattern& pattern,
                   std::span<const int64_t> numbers, int64_t n_owned, int block, int64_t n_global);
  ~PetscBlockMatrix();
  PetscBlockMatrix(const PetscBlockMatrix&) = delete;
  PetscBlockMatrix& operator=(const PetscBlockMatrix&) = delete;

  // Collective: the owned block rows of m (over the constructor's pattern) into the matrix,
  // replacing what was there, then MatAssemblyBegin/End.
  void set(const mesh::BlockCsr<double>& m);

  ::Mat mat() const { return mat_; }
  int block() const { return block_; }

 private:
  ::Mat mat_ = nullptr;
  const mesh::BlockPattern& pattern_;
  std::vector<PetscInt> numbers_;
  int64_t n_owned_ = 0;
  int block_ = 0;
  std::vector<PetscScalar> row_;  // one block row, as MatSetValuesBlocked reads it
};
}  // namespace dualjit::petsc
