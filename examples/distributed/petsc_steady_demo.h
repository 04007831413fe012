// The steady Euler demo (examples/cfd/steady_demo.h) over MPI ranks through PETSc
// (petsc_steady.h): `mpirun -np N dualjit demo --problem cfd-steady`. Every rank builds the mesh
// and the problem; the first rank meshes and writes the files; each rank assembles its share on
// its own GPU (the host's GPUs taken in turn) or on the CPU. PETSc's options come from the
// PETSC_OPTIONS environment variable (-ksp_monitor, -pc_type, ...).
#pragma once

#include <mpi.h>

#include "examples/cfd/steady_demo.h"

namespace dualjit::cfd {

// Collective over comm; the same report on every rank. Throws as run_steady_demo does, on
// every rank alike.
SteadyDemoReport run_petsc_steady_demo(MPI_Comm comm, SteadyDemoOptions options);

}  // namespace dualjit::cfd
