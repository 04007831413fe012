#include "solvers/device_lu_source.h"

#include "backends/cuda/driver.h"
#include "solvers/solver_error.h"

namespace dualjit::solvers {

std::unique_ptr<cuda::SourceModule> compile_lu_module(const std::string& name,
                                                      const std::string& source, int n,
                                                      const char* factor_entry, int* shared_bytes) {
  const cuda::DeviceInfo& device = cuda::Context::primary().device();
  *shared_bytes = n * n * static_cast<int>(sizeof(double));
  if (*shared_bytes > device.max_shared_per_block_optin)
    throw SolverError("integrate_stiff: the device LU holds a system of " + std::to_string(n) +
                      " unknowns in shared memory (" + std::to_string(*shared_bytes) +
                      " bytes); this GPU allows " +
                      std::to_string(device.max_shared_per_block_optin));
  auto module = std::make_unique<cuda::SourceModule>(name, source);
  if (*shared_bytes > 48 * 1024)
    cuda::set_max_dynamic_shared(module->function(factor_entry), *shared_bytes);
  return module;
}

std::string device_lu_functions() {
  return R"(
// a (N x N, row-major, shared, all FT threads of the block calling) := its LU factors, unit L
// below the diagonal and U on and above, with partial pivoting: row k swapped with piv[k]
// (LAPACK's convention). Returns 1 at a zero pivot (a NaN pivot runs on, to a non-finite
// solution the caller reports as such).
__device__ int lu_factor_shared(double* a, int* piv) {
  __shared__ int pivot_row;
  int bad = 0;
  for (int k = 0; k < N; ++k) {
    if (threadIdx.x < 32) {
      double best = -1.0;
      int at = k;
      for (int i = k + threadIdx.x; i < N; i += 32) {
        const double v = fabs(a[i * N + k]);
        if (v > best) best = v, at = i;
      }
      for (int o = 16; o > 0; o >>= 1) {
        const double ob = __shfl_xor_sync(0xffffffffu, best, o);
        const int oa = __shfl_xor_sync(0xffffffffu, at, o);
        if (ob > best || (ob == best && oa < at)) best = ob, at = oa;
      }
      if (threadIdx.x == 0) {
        pivot_row = at;
        piv[k] = at;
      }
    }
    __syncthreads();
    const int p = pivot_row;
    if (p != k)
      for (int j = threadIdx.x; j < N; j += FT) {
        const double t = a[k * N + j];
        a[k * N + j] = a[p * N + j];
        a[p * N + j] = t;
      }
    __syncthreads();
    const double pivot = a[k * N + k];
    if (pivot == 0.0) {
      bad = 1;
      continue;
    }
    // A warp per row below the pivot, lanes along the row: the multiplier, then the update
    // (no integer division, one barrier per column besides the pivot's).
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int i = k + 1 + warp; i < N; i += FT / 32) {
      const double l = a[i * N + k] / pivot;
      __syncwarp();
      if (lane == 0) a[i * N + k] = l;
      for (int j = k + 1 + lane; j < N; j += 32) a[i * N + j] -= l * a[k * N + j];
    }
    __syncthreads();
  }
  return bad;
}

// x (N values in the warp's shared memory) := A^-1 x with A's factors L (global, row-major)
// and pivots piv; every lane of the warp calls.
__device__ void lu_solve_warp(const double* L, const int* piv, double* x, int lane) {
  if (lane == 0)
    for (int i = 0; i < N; ++i) {
      const int p = piv[i];
      if (p != i) {
        const double t = x[i];
        x[i] = x[p];
        x[p] = t;
      }
    }
  __syncwarp();
  for (int i = 1; i < N; ++i) {
    double sum = 0.0;
    for (int j = lane; j < i; j += 32) sum += L[i * N + j] * x[j];
    sum = warp_sum(sum);
    if (lane == 0) x[i] -= sum;
    __syncwarp();
  }
  for (int i = N - 1; i >= 0; --i) {
    double sum = 0.0;
    for (int j = i + 1 + lane; j < N; j += 32) sum += L[i * N + j] * x[j];
    sum = warp_sum(sum);
    if (lane == 0) x[i] = (x[i] - sum) / L[i * N + i];
    __syncwarp();
  }
}
)";
}

}  // namespace dualjit::solvers
