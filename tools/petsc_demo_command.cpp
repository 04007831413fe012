#include "tools/petsc_demo_command.h"

#include <petscsys.h>

#include "examples/distributed/petsc_steady_demo.h"
#include "solvers/petsc/petsc_session.h"

namespace dualjit::tools {

int petsc_steady_demo(const cfd::SteadyDemoOptions& options,
                      const std::function<int(const cfd::SteadyDemoReport&)>& print) {
  // No argv: the command line is dualjit's; PETSc reads PETSC_OPTIONS.
  petsc::PetscSession session(nullptr, nullptr);
  const cfd::SteadyDemoReport r = cfd::run_petsc_steady_demo(PETSC_COMM_WORLD, options);
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  return rank == 0 ? print(r) : (r.ok ? 0 : 1);
}

}  // namespace dualjit::tools
