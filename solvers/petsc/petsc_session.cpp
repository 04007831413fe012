#include "solvers/petsc/petsc_session.h"

#include <petscsys.h>

#include "solvers/petsc/petsc_check.h"

namespace dualjit::petsc {

PetscSession::PetscSession(int* argc, char*** argv) {
  check_petsc(PetscInitialize(argc, argv, nullptr, nullptr), "PetscInitialize");
}

PetscSession::~PetscSession() {
  PetscFinalize();
}

}  // namespace dualjit::petsc
