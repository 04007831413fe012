// CUDA source text of the dense LU both device stiff engines use (device_rosenbrock_engine.h,
// device_bdf_engine.h), for one system size: lu_factor factors a block's system in the module's
// LuT (double or float) and writes the factors column-major, lu_solve_warp solves with them by
// one warp (lu_load_rows and lu_solve_rows with the factors in the lanes' registers, for
// small systems). The modules that include it define N (unknowns) and LuT first; it defines FT,
// the threads of a factoring block.
#pragma once

#include <memory>
#include <string>

#include "backends/cuda/source_module.h"

namespace dualjit::solvers {

// The factoring block's threads and dynamic shared memory (the n * n values of the matrix, in
// the module's LuT of value_bytes).
int lu_factor_threads(int n);
int lu_factor_shared_bytes(int n, int value_bytes);
std::string device_lu_functions(int n);

// Compiles (or loads) a stiff engine's module whose kernel `factor_entry` factors an n x n
// system in LuT of value_bytes, and allows that kernel the dynamic shared memory it needs; returns
// the module and sets *shared_bytes (lu_factor_shared_bytes). NVRTC takes `options` but their
// architecture (the current device's). Throws SolverError when this GPU cannot give a block
// that much.
std::unique_ptr<cuda::SourceModule> compile_lu_module(const std::string& name,
                                                      const std::string& source, int n,
                                                      int value_bytes, const char* factor_entry,
                                                      int* shared_bytes,
                                                      const jit::CompileOptions& options = {});

}  // namespace dualjit::solvers
