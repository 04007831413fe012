// A distributed vector of node values (a residual, a gradient, a state update) as PETSc's Vec
// in the solver numbering (solver_numbering.h), n_owned x block entries per rank.
#pragma once

#include <petscvec.h>

#include <cstdint>
#include <span>

namespace dualjit::petsc {

// Moved in and out of the first n_owned x block entries of local arrays.
class PetscBlockVector {
 public:
  PetscBlockVector(MPI_Comm comm, int64_t n_owned, int block);
  ~PetscBlockVector();
  PetscBlockVector(const PetscBlockVector&) = delete;
  PetscBlockVector& operator=(const PetscBlockVector&) = delete;

  // The owned rows of local (n_local x block, local numbering, owned first) in, scaled.
  void set(std::span<const double> local, double scale = 1.0);
  // The vector into the owned rows of local; ghost rows untouched.
  void get(std::span<double> local) const;

  ::Vec vec() const { return vec_; }

 private:
  ::Vec vec_ = nullptr;
  int64_t size_ = 0;
};

}  // namespace dualjit::petsc
