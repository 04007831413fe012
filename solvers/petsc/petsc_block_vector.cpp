#include "solvers/petsc/petsc_block_vector.h"

#include <stdexcept>
#include <string>

#include "solvers/petsc/petsc_check.h"

namespace dualjit::petsc {

PetscBlockVector::PetscBlockVector(MPI_Comm comm, int64_t n_owned, int block)
    : size_(n_owned * block) {
  check_petsc(VecCreateMPI(comm, static_cast<PetscInt>(size_), PETSC_DETERMINE, &vec_),
              "VecCreateMPI");
  check_petsc(VecSetBlockSize(vec_, block), "VecSetBlockSize");
}

PetscBlockVector::~PetscBlockVector() {
  VecDestroy(&vec_);
}

void PetscBlockVector::set(std::span<const double> local, double scale) {
  if (static_cast<int64_t>(local.size()) < size_)
    throw std::invalid_argument("PetscBlockVector::set: " + std::to_string(local.size()) +
                                " values for " + std::to_string(size_) + " owned entries");
  PetscScalar* v = nullptr;
  check_petsc(VecGetArray(vec_, &v), "VecGetArray");
  for (int64_t k = 0; k < size_; ++k) v[k] = scale * local[k];
  check_petsc(VecRestoreArray(vec_, &v), "VecRestoreArray");
}

void PetscBlockVector::get(std::span<double> local) const {
  if (static_cast<int64_t>(local.size()) < size_)
    throw std::invalid_argument("PetscBlockVector::get: room for " + std::to_string(local.size()) +
                                " of " + std::to_string(size_) + " owned entries");
  const PetscScalar* v = nullptr;
  check_petsc(VecGetArrayRead(vec_, &v), "VecGetArrayRead");
  for (int64_t k = 0; k < size_; ++k) local[k] = v[k];
  check_petsc(VecRestoreArrayRead(vec_, &v), "VecRestoreArrayRead");
}

}  // namespace dualjit::petsc
