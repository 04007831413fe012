#include "solvers/device_solver_source.h"

namespace dualjit::solvers {

std::string device_block_inverse_source() {
  return R"(
__device__ __forceinline__ bool dj_invert_block(double a[B][B], double m[B][B]) {
  for (int i = 0; i < B; ++i)
    for (int j = 0; j < B; ++j) m[i][j] = i == j ? 1.0 : 0.0;
  for (int c = 0; c < B; ++c) {
    int piv = c;
    for (int i = c + 1; i < B; ++i) if (fabs(a[i][c]) > fabs(a[piv][c])) piv = i;
    const double d = a[piv][c];
    if (!(fabs(d) > 0.0) || !isfinite(d)) return false;
    for (int j = 0; j < B; ++j) {
      const double t = a[c][j]; a[c][j] = a[piv][j]; a[piv][j] = t;
      const double u = m[c][j]; m[c][j] = m[piv][j]; m[piv][j] = u;
    }
    for (int j = 0; j < B; ++j) { a[c][j] /= d; m[c][j] /= d; }
    for (int i = 0; i < B; ++i) {
      if (i == c) continue;
      const double f = a[i][c];
      for (int j = 0; j < B; ++j) { a[i][j] -= f * a[c][j]; m[i][j] -= f * m[c][j]; }
    }
  }
  return true;
}
)";
}

std::string device_block_sum_source() {
  return R"(
__device__ __forceinline__ double block_sum(double v, double* sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = T / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  const double total = sh[0];
  __syncthreads();
  return total;
}
)";
}

}  // namespace dualjit::solvers
