// Steady first-order Euler solutions of a roe_problem (roe_problem.h): pseudo-transient
// continuation, each step a linear solve with (V / dt + dR/dQ) by restarted GMRES, with local
// time steps from a CFL number that grows as the residual falls (switched evolution
// relaxation, Mulder and van Leer); and, for comparison, explicit local time stepping of the
// same residual. The residual and its exact Jacobian come from the Assembler; with the CPU
// backend the state and the linear algebra (gmres.h) are in host memory, with the CUDA
// backend they stay on the GPU (device_gmres.h) and the host reads scalars only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/assembly/assembler.h"
#include "examples/cfd/edge_mesh.h"
#include "examples/cfd/roe_problem.h"
#include "solvers/gmres.h"

namespace dualjit::cfd {

// automatic: multicoloured symmetric Gauss-Seidel (gauss_seidel_sweeps sweeps) on both
// backends: each colour's nodes in parallel, where ILU(0)'s set-up and triangular solves are
// sequential (the GPU refuses block_ilu0). On the host's 16 cores it also took fewer Krylov
// iterations than ILU(0) on the 71 k-node sphere (226 against 354; 13.1 s against 32.9 s:
// bench/RESULTS.md).
enum class SteadyPreconditioner { automatic, block_jacobi, block_ilu0, multicolor_sgs };
// "automatic", "block_jacobi", "block_ilu0", "multicolor_sgs"
std::string_view preconditioner_name(SteadyPreconditioner p);

// How the Jacobian is assembled and stored for the linear solves: the general block CSR of the
// element kernels (Assembler::jacobian / run_jacobian); the FUN3D split form of the fused
// kernels (diagonal blocks apart, off-diagonal ones by rows, fp64: run_jacobian_split), the
// CFD path's fast assembly; or the split form in edge-based storage (each edge's two off-
// diagonal blocks together, assembled contiguously, read by rows through an index:
// OffOrder::elements). split and edges run on the GPU only. automatic: on the GPU the storage
// with the least time per nonlinear iteration on this problem and device (storage_tuner.h,
// measured once and kept in the tuning database); block_csr on the CPU.
enum class JacobianStorage { automatic, block_csr, split, edges };
std::string_view storage_name(JacobianStorage s);  // "automatic", "block_csr", "split", "edges"
// The storage of a name above ("auto" too); throws std::invalid_argument naming the choices.
JacobianStorage parse_storage(std::string_view name);

struct SteadyOptions {
  // CFL_n = clamp(cfl_initial * (|R_0| / |R_n|)^ser_exponent, cfl_initial, cfl_max) times a
  // back-off factor: a step whose state has a non-positive density or pressure, or a
  // non-finite residual, is rejected and retried with the factor divided by 10; each accepted
  // step doubles it back towards 1. The solve stops, not converged, below 1e-12.
  double cfl_initial = 10;
  double cfl_max = 1e10;
  double ser_exponent = 1.0;
  int max_iterations = 100;
  double rtol = 1e-10;  // stop at |R| <= rtol |R_0| (2-norm over all nodes and components)
  double atol = 0;      // or |R| <= atol
  solvers::GmresOptions linear{.restart = 30, .max_iterations = 300, .rtol = 1e-3};
  // GMRES's relative tolerance per step, eta: with eisenstat_walker, their second choice
  // eta_k = 0.9 (|R_k| / |R_k-1|)^2, kept above 0.9 eta_k-1^2 while that exceeds 0.1 (so it
  // does not drop on one lucky step), clamped to [linear.rtol, linear_rtol_max], starting at
  // linear_rtol_max: loose solves while the pseudo-time steps are far from Newton's, tight ones
  // once they converge quadratically. Without, eta = linear.rtol on every step.
  bool eisenstat_walker = true;
  double linear_rtol_max = 0.1;
  SteadyPreconditioner preconditioner = SteadyPreconditioner::automatic;
  // Symmetric sweeps of multicolor_sgs: two halve the Krylov iterations of one at 1.6 times
  // the cost per iteration (the sphere, 271 k nodes, on an H100: bench/RESULTS.md).
  int gauss_seidel_sweeps = 2;
  JacobianStorage storage = JacobianStorage::automatic;
};

struct SteadyIteration {
  int iteration = 0;
  double residual = 0;  // |R| before the step
  double cfl = 0;
  bool rejected = false;   // the step's state was unphysical: undone, CFL reduced
  double linear_rtol = 0;  // the tolerance GMRES was given
  int linear_iterations = 0;
  double linear_residual = 0;  // GMRES's final relative residual
  double seconds = 0;          // wall clock of the step: assembly, preconditioner, Krylov
  double assembly_seconds = 0, preconditioner_seconds = 0, krylov_seconds = 0;
};

struct SteadyResult {
  bool converged = false;
  JacobianStorage storage = JacobianStorage::block_csr;  // the one used (automatic resolved)
  int steps = 0;  // pseudo-time steps taken (rejected ones included)
  double initial_residual = 0, final_residual = 0;
  std::vector<SteadyIteration> history;
};

// Node i's local time step at CFL 1: V_i / sum over its dual faces of (|u_i . S| + c_i |S|).
// Throws std::invalid_argument naming the node whose density or pressure is not positive.
std::vector<double> local_time_steps(const EdgeMesh& em, std::span<const double> q, double gamma);

// Advances q (n_nodes x 5, conservative) to a steady state of the assembler's problem (built
// by roe_problem over `em`). Throws std::invalid_argument for a state of the wrong size, a
// node whose density or pressure is not positive, or block_ilu0 on the GPU, and SolverError
// when a linear solve meets a singular block.
SteadyResult solve_steady(assembly::Assembler& assembler, const EdgeMesh& em, double gamma,
                          std::vector<double>& q, const SteadyOptions& options = {});

// Explicit local time stepping, q_i -= cfl dt_i / V_i R_i, for at most max_iterations steps or
// until |R| <= rtol |R_0|, the residual checked every kExplicitCheck steps (so up to that many
// steps past the tolerance); history holds one entry per check, the residual at its first
// step and the seconds of its steps (linear fields zero).
inline constexpr int kExplicitCheck = 10;
SteadyResult solve_steady_explicit(assembly::Assembler& assembler, const EdgeMesh& em, double gamma,
                                   std::vector<double>& q, double cfl, int max_iterations,
                                   double rtol);

// The history as a table (iteration, residual, CFL, linear iterations and residual, seconds).
std::string format_history(const SteadyResult& result);

}  // namespace dualjit::cfd
