// The distributed run of the cfd-steady demo (steady_demo_command.h): `mpirun -np N dualjit demo
// --problem cfd-steady` (or --petsc): PETSc and MPI started for the run, the solve over the
// ranks (examples/distributed/petsc_steady_demo.h), the report printed by the first rank.
// A build without MPI and PETSc has petsc_demo_command_absent.cpp instead, which says so.
#pragma once

#include <functional>

#include "examples/cfd/steady_demo.h"

namespace dualjit::tools {

// Returns the exit code: print's on the first rank, 0 or 1 (converged or not) on the others.
int petsc_steady_demo(const cfd::SteadyDemoOptions& options,
                      const std::function<int(const cfd::SteadyDemoReport&)>& print);

}  // namespace dualjit::tools
