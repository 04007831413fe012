// CUDA source of a device function the solvers' modules share: the inverse of one small dense
// block by Gauss-Jordan elimination with partial pivoting, in registers.
#pragma once

#include <string>

namespace dualjit::solvers {

// Defines `__device__ bool dj_invert_block(double a[B][B], double m[B][B])`: m = a^-1, a
// destroyed; false when a pivot is zero or not finite. The including source defines
// `constexpr int B` first.
std::string device_block_inverse_source();

}  // namespace dualjit::solvers
