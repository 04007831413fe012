// PETSc's error codes as exceptions naming the call.
#pragma once

#include <petscsys.h>

namespace dualjit::petsc {

// Throws std::runtime_error naming `call` and PETSc's message when err is non-zero.
void check_petsc(PetscErrorCode err, const char* call);

}  // namespace dualjit::petsc
