// PETSc (and MPI, when PETSc starts it) for the life of a program: PetscInitialize on
// construction, PetscFinalize on destruction; PETSc's options database takes the command line
// (-ksp_type, -pc_type, -ksp_monitor, ...). One per process, before any other PETSc object.
#pragma once

namespace dualjit::petsc {

class PetscSession {
 public:
  PetscSession(int* argc, char*** argv);
  ~PetscSession();
  PetscSession(const PetscSession&) = delete;
  PetscSession& operator=(const PetscSession&) = delete;
};

}  // namespace dualjit::petsc
