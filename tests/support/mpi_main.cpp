// The doctest main of the suites that run under mpirun: PETSc (and MPI) started first, the
// same test cases on every rank (their collectives in the same order), and the exit status
// failed on every rank when any rank failed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <mpi.h>

#include "solvers/petsc/petsc_session.h"

int main(int argc, char** argv) {
  dualjit::petsc::PetscSession petsc(&argc, &argv);
  doctest::Context context(argc, argv);
  int failed = context.run() != 0 ? 1 : 0, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}
