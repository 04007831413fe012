// CUDA source of device functions the solvers' modules share (device_pcg.h, device_gmres.h):
// the inverse of one small dense block, and a fixed-order sum over a thread block.
#pragma once

#include <string>

namespace dualjit::solvers {

// Defines `__device__ bool dj_invert_block(double a[B][B], double m[B][B])`: m = a^-1 by
// Gauss-Jordan elimination with partial pivoting in registers, a destroyed; false when a pivot
// is zero or not finite. The including source defines `constexpr int B` first.
std::string device_block_inverse_source();

// Defines `__device__ double block_sum(double v, double* sh)`: the sum of v over the T threads
// of the block (a tree in shared memory sh[T], the same order every time), returned to all.
// Every thread calls it; the including source defines `constexpr int T` first.
std::string device_block_sum_source();

}  // namespace dualjit::solvers
