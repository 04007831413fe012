// The steady Euler solve of steady_euler.h over MPI ranks with PETSc's linear solvers: the
// mesh's nodes are partitioned by METIS into one part per rank, each rank assembles the
// residual and the exact Jacobian of its owned nodes with its own Assembler (rank_problem.h),
// ghost states move between ranks after each update (ghost_exchange.h), and each pseudo-time
// step's (V / dt + dR/dQ) dq = -R goes to PETSc as MATMPIBAIJ (block 5) and is solved by KSP:
// right-preconditioned GMRES, restart and iteration cap from options.linear, relative
// tolerances from the Eisenstat-Walker schedule (ranks that assemble on GPUs keep the matrix
// there: PetscSteadyOptions::device_linear_algebra). The CFL schedule and the stopping rules are
// solve_steady's, on global norms, so every rank takes the same steps.
//
// The input (mesh and state) is replicated on every rank; the assembly, the matrix, the
// preconditioner and the Krylov solve are distributed.
#pragma once

#include <mpi.h>

#include <vector>

#include "backends/assembly/assembler.h"
#include "examples/cfd/steady_euler.h"

namespace dualjit::cfd {

struct PetscSteadyOptions {
  SteadyOptions steady;
  // Per rank (the backend: Cpu, or Cuda with one GPU per rank).
  assembly::AssemblerOptions assembler;
  // PETSc's preconditioner for each choice: block_jacobi is point-block Jacobi (PCPBJACOBI, the
  // same on any number of ranks, so the convergence history does not depend on the
  // partition); automatic and block_ilu0 are block Jacobi over the ranks with block ILU(0)
  // inside each (PCBJACOBI + PCILU, PETSc's own default); multicolor_sgs is PETSc's
  // processor-local symmetric SOR (PCSOR) with gauss_seidel_sweeps sweeps. Then PETSc's
  // options database (the command line's -ksp_*, -pc_*) may override any of it.
  bool options_database = true;
  // When the ranks assemble on GPUs: the products and the preconditioner run there too, PETSc's
  // KSP driving them over host vectors (petsc_device_operator.h: no MATMPIBAIJ then), with
  // block_jacobi as block Jacobi and automatic and multicolor_sgs as multicoloured SGS over each
  // rank's owned block; block_ilu0 is refused there, as on one GPU. Off: the matrix comes to the
  // host for PETSc's own preconditioners.
  bool device_linear_algebra = true;
};

// Collective over comm. `global` is the whole problem (roe_problem over em), the same on every
// rank; q (n_nodes x 5) is the initial state on every rank, and the converged state on every
// rank on return. Throws as solve_steady does, on every rank alike.
SteadyResult solve_steady_petsc(MPI_Comm comm, const assembly::Problem& global, const EdgeMesh& em,
                                double gamma, std::vector<double>& q,
                                const PetscSteadyOptions& options = {});

}  // namespace dualjit::cfd
