// CUDA source text of the dense LU both device stiff engines use (device_rosenbrock_engine.h,
// device_bdf_engine.h), for one system size: lu_factor_shared factors a matrix a thread block
// holds in shared memory, lu_store writes the factors column-major in the module's LuT (double
// or float), lu_solve_warp solves with them by one warp. The modules that include it define N
// (unknowns), FT (threads per factoring block) and LuT first.
#pragma once

#include <memory>
#include <string>

#include "backends/cuda/source_module.h"

namespace dualjit::solvers {

std::string device_lu_functions();

// Compiles (or loads) a stiff engine's module whose kernel `factor_entry` factors an n x n
// system in shared memory, and allows that kernel the n * n doubles it needs; returns the
// module and sets *shared_bytes. Throws SolverError when this GPU cannot give a block that much.
std::unique_ptr<cuda::SourceModule> compile_lu_module(const std::string& name,
                                                      const std::string& source, int n,
                                                      const char* factor_entry, int* shared_bytes);

}  // namespace dualjit::solvers
