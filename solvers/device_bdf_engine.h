// BDF steps on packed systems in device memory (bdf_engine.h): one NVRTC module per system
// size with the rescale and prediction, the batched LU of I - c J (a thread block per system,
// partial pivoting; device_lu_source.h) for the systems that need it, the Newton
// iteration (a warp per system at a time: right-hand side, solve, convergence test, update;
// with small systems each warp takes several in turn, the next one's data copied meanwhile), the
// error norms, the step control (a thread per system; bdf_step_control.nvrtc.h) and the difference
// update. Jacobians and LUs stay in per-system slots that packing
// does not move. The system's f and Jacobian come from its own kernels (StiffSystem).
#pragma once

#include <memory>
#include <string>

#include "jit/nvrtc_compiler.h"
#include "solvers/bdf_engine.h"
#include "solvers/stiff_integrator.h"

namespace dualjit::solvers {

// Where a Newton iteration's warp holds its system's fp32 LU factors for the solve's 2n
// dependent column steps: loaded into the lanes' registers (n <= 64; the next system's factors
// and vectors meanwhile copied into shared memory), copied into dynamic shared memory (where
// that fits), or read from device memory column by column.
enum class NewtonFactors { device_memory, shared_memory, registers };
NewtonFactors newton_factors_for(int n, int max_shared_per_block);
// dj_bdf_newton's dynamic shared memory a block.
int bdf_newton_shared_bytes(int n, NewtonFactors factors);

// The module's CUDA source for n unknowns per system and the options NVRTC compiles it with
// (for compiling without a GPU).
std::string device_bdf_source(int n, NewtonFactors factors);
jit::CompileOptions device_bdf_options();

// Throws SolverError when a system's LU does not fit in a thread block's shared memory.
std::unique_ptr<BdfEngine> make_device_bdf_engine(StiffSystem& system, const StiffOptions& options,
                                                  int64_t capacity);

}  // namespace dualjit::solvers
