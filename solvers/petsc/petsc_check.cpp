#include "solvers/petsc/petsc_check.h"

#include <stdexcept>
#include <string>

namespace dualjit::petsc {

void check_petsc(PetscErrorCode err, const char* call) {
  if (err == 0) return;
  const char* text = nullptr;
  PetscErrorMessage(err, &text, nullptr);
  throw std::runtime_error(std::string(call) + " failed: PETSc error " + std::to_string(err) +
                           (text ? std::string(" (") + text + ")" : std::string()));
}

}  // namespace dualjit::petsc
