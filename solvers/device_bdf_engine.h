// BDF steps on packed systems in device memory (bdf_engine.h): one NVRTC module per system
// size with the rescale and prediction, the batched LU of I - c J (a thread block per system,
// the matrix in shared memory, partial pivoting) for the systems that need it, the Newton
// iteration (a warp per system: right-hand side, solve, convergence test, update), the error
// norms and the difference update. Jacobians and LUs stay in per-system slots that packing
// does not move. The system's f and Jacobian come from its own kernels (StiffSystem).
#pragma once

#include <memory>
#include <string>

#include "solvers/bdf_engine.h"
#include "solvers/stiff_integrator.h"

namespace dualjit::solvers {

// The module's CUDA source for n unknowns per system (for compiling without a GPU). With
// shared_factors, the Newton iteration's warp first copies its system's LU factors into dynamic
// shared memory (bdf_newton_shared_bytes(n) a block) and solves from there: the solve's 2n
// dependent column steps then wait on shared memory, not on device memory.
std::string device_bdf_source(int n, bool shared_factors);
int bdf_newton_shared_bytes(int n);

// Throws SolverError when n x n doubles do not fit in a thread block's shared memory.
std::unique_ptr<BdfEngine> make_device_bdf_engine(StiffSystem& system, const StiffOptions& options,
                                                  int64_t capacity);

}  // namespace dualjit::solvers
