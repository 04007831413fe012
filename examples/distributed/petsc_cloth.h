// The cloth Newton step (cloth_energy.h, cloth_demo.h) over MPI ranks with PETSc's SNES: the
// minimum of an energy Problem (a cloth step's, or any with energy terms only) by Newton's
// method with a line search (SNESNEWTONLS). The nodes are partitioned by METIS into one part
// per rank; each rank assembles, with its own Assembler over its share of the problem
// (rank_problem.h), after a ghost exchange of the positions (ghost_exchange.h):
//   the function:  the gradient's owned rows;
//   the Jacobian:  the Hessian's owned block rows (PD-projected per element when the assembler
//                  options ask for it, as the serial cloth demo does), as MATMPIBAIJ;
//   the objective: the energy of its energy_share (each element on the rank owning its first
//                  vertex), summed over the ranks, so the line search sees each element once.
// Each Newton step is solved by KSP (CG or GMRES, below), then searched along by SNES's
// backtracking line search on the energy.
//
// Pinned DOFs stay exactly where the starting point has them: the gradient is zero there, the
// Hessian has identity rows and columns there (PinnedDofs::apply_identity, so it stays
// symmetric for CG), and the step is zeroed there before each line search whatever solver the
// options database picks. The energy still holds their terms; they only never move.
//
// The input (problem, start, pins) is replicated on every rank; the assembly, the matrix, the
// preconditioner and the Krylov and Newton iterations are distributed.
#pragma once

#include <mpi.h>

#include <span>
#include <string>
#include <vector>

#include "backends/assembly/assembler.h"
#include "solvers/pinned.h"

namespace dualjit::mesh_energy {

enum class SnesLinearSolver {
  // KSPCG with point-block Jacobi (PCPBJACOBI): needs a positive definite Hessian (project
  // it); the same preconditioner on any number of ranks, so the Newton history does not depend
  // on the partition beyond round-off.
  cg_point_block_jacobi,
  // KSPGMRES with block Jacobi over the ranks and block ILU(0) inside each (PETSc's default):
  // stronger, for indefinite Hessians too, but different on each partition.
  gmres_block_ilu0,
};

struct SnesMinimizeOptions {
  // Per rank (the backend: Cpu, or Cuda with one GPU per rank; hessian_projection for the
  // Jacobian handed to SNES).
  assembly::AssemblerOptions assembler;
  // Over the global DOFs (n_nodes x block), or empty: nothing pinned.
  solvers::PinnedDofs pinned;
  int max_iterations = 50;  // Newton steps
  // SNES's convergence tests, PETSc's defaults: on the gradient norm over the free DOFs,
  // |g| <= gradient_tolerance (atol; 0: off) or |g| <= relative_gradient_tolerance |g_0|
  // (rtol); on the step, |dx| <= step_tolerance |x| (stol; 0: off). The step test also ends,
  // as converged, a solve whose energy can no longer resolve a step's decrease (the line
  // search's full step fails on round-off with |dx| that small), where a tighter gradient
  // tolerance than the energy's round-off allows would otherwise end it as a failed line
  // search.
  double gradient_tolerance = 0;
  double relative_gradient_tolerance = 1e-8;
  double step_tolerance = 1e-8;
  SnesLinearSolver linear = SnesLinearSolver::cg_point_block_jacobi;
  // Relative tolerance and iteration cap of each linear solve. Tight by default: then the
  // Newton steps, and so their history, are all but exact.
  double linear_rtol = 1e-10;
  int linear_max_iterations = 5000;
  // Then PETSc's options database (-snes_*, -ksp_*, -pc_*, -snes_linesearch_*) may override
  // any of it, when set.
  bool options_database = true;
};

// One SNES iteration, recorded by a monitor (its energy one more evaluation per iteration).
// Record k describes iterate x_k and the step taken from it; the last record is the returned
// point, with step 0.
struct SnesIteration {
  int iteration = 0;
  double energy = 0;          // E(x_k), each element counted once over the ranks
  double gradient_norm = 0;   // |g(x_k)| over the free DOFs: SNES's function norm
  double step = 0;            // the line search's lambda for the step from x_k (1: full)
  int linear_iterations = 0;  // KSP iterations of that step's solve
};

struct SnesMinimizeResult {
  std::vector<double> x;  // the final positions, n_nodes x block, on every rank
  std::vector<SnesIteration> history;
  bool converged = false;
  std::string reason;  // SNES's converged reason: "CONVERGED_FNORM_ABS", "DIVERGED_MAX_IT", ...
  int linear_iterations = 0;  // over all steps
  double seconds = 0;
};

// SNES's history as text, one iteration a line: iteration, energy, |g|, step, linear
// iterations; then the reason.
std::string format_snes_history(const SnesMinimizeResult& r);

// Collective over comm. `global` (energy terms only) and x0 (n_nodes x block: the start, and
// the positions of the pinned DOFs) are the same on every rank. Returns when SNES converges or
// takes max_iterations steps (converged false, reason "DIVERGED_MAX_IT"). Throws, on every
// rank alike: std::invalid_argument for a start or pins of the wrong size or a term that is
// not an energy, naming it; DistributedError for what fails on a rank (the assembly, the
// partition); std::runtime_error naming SNES's reason and the iteration when SNES diverges
// otherwise (a failed line search or linear solve, a non-finite gradient).
SnesMinimizeResult minimize_energy_petsc(MPI_Comm comm, const assembly::Problem& global,
                                         std::span<const double> x0,
                                         const SnesMinimizeOptions& options = {});

}  // namespace dualjit::mesh_energy
