// CUDA source text of the dense LU both device stiff engines use (device_rosenbrock_engine.h,
// device_bdf_engine.h), for one system size: lu_factor_shared factors a matrix a thread block
// holds in shared memory, lu_solve_warp solves with the factors by one warp. The modules that
// include it define N (unknowns), FT (threads per factoring block) and warp_sum first.
#pragma once

#include <string>

namespace dualjit::solvers {

std::string device_lu_functions();

}  // namespace dualjit::solvers
