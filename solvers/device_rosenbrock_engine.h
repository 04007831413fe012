// Rosenbrock steps on packed systems in device memory (rosenbrock_engine.h): one NVRTC module
// per system size with the batched LU (a thread block per system, the matrix in shared memory,
// partial pivoting), the stage solves (a warp per system), the stage combinations and the
// error norms. The system's f and Jacobian come from its own kernels (StiffSystem).
#pragma once

#include <memory>
#include <string>

#include "solvers/rosenbrock_engine.h"
#include "solvers/rosenbrock_method.h"
#include "solvers/stiff_integrator.h"

namespace dualjit::solvers {

// The module's CUDA source for n unknowns per system (for compiling without a GPU).
std::string device_rosenbrock_source(const RosenbrockMethod& method, int n);

// Throws SolverError when n x n doubles do not fit in a thread block's shared memory.
std::unique_ptr<RosenbrockEngine> make_device_rosenbrock_engine(StiffSystem& system,
                                                                const RosenbrockMethod& method,
                                                                const StiffOptions& options,
                                                                int64_t capacity);

}  // namespace dualjit::solvers
