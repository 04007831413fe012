#include "solvers/device_lu_source.h"

#include "backends/cuda/driver.h"
#include "solvers/solver_error.h"

namespace dualjit::solvers {

int lu_factor_threads(int) {
  return 128;
}

int lu_factor_shared_bytes(int n, int value_bytes) {
  return n * n * value_bytes;
}

std::unique_ptr<cuda::SourceModule> compile_lu_module(const std::string& name,
                                                      const std::string& source, int n,
                                                      int value_bytes, const char* factor_entry,
                                                      int* shared_bytes,
                                                      const jit::CompileOptions& options) {
  const cuda::DeviceInfo& device = cuda::Context::primary().device();
  *shared_bytes = lu_factor_shared_bytes(n, value_bytes);
  if (*shared_bytes > device.max_shared_per_block_optin)
    throw SolverError("integrate_stiff: the device LU holds a system of " + std::to_string(n) +
                      " unknowns in shared memory (" + std::to_string(*shared_bytes) +
                      " bytes); this GPU allows " +
                      std::to_string(device.max_shared_per_block_optin));
  auto module = std::make_unique<cuda::SourceModule>(name, source, options);
  if (*shared_bytes > 48 * 1024)
    cuda::set_max_dynamic_shared(module->function(factor_entry), *shared_bytes);
  return module;
}

std::string device_lu_functions(int n) {
  return "constexpr int FT = " + std::to_string(lu_factor_threads(n)) + ";\n" + R"(
// a (N x N LuT, row-major, shared, all FT threads of the block calling) := its LU factors, unit L
// below the diagonal and U on and above, with partial pivoting; perm[i] := the row of the
// original system that row i of the factors came from (LAPACK's row swaps composed, so that a
// solve gathers its right-hand side in one step). Returns 1 at a zero pivot (a NaN pivot runs
// on, to a non-finite solution the caller reports as such).
__device__ int lu_factor_shared(LuT* a, int* perm) {
  __shared__ int pivot_row;
  __shared__ int rows[N];
  for (int i = threadIdx.x; i < N; i += FT) rows[i] = i;
  int bad = 0;
  for (int k = 0; k < N; ++k) {
    if (threadIdx.x < 32) {
      LuT best = -1;
      int at = k;
      for (int i = k + threadIdx.x; i < N; i += 32) {
        const LuT v = fabs(a[i * N + k]);
        if (v > best) best = v, at = i;
      }
      for (int o = 16; o > 0; o >>= 1) {
        const LuT ob = __shfl_xor_sync(0xffffffffu, best, o);
        const int oa = __shfl_xor_sync(0xffffffffu, at, o);
        if (ob > best || (ob == best && oa < at)) best = ob, at = oa;
      }
      if (threadIdx.x == 0) {
        pivot_row = at;
        const int t = rows[k];
        rows[k] = rows[at];
        rows[at] = t;
      }
    }
    __syncthreads();
    const int p = pivot_row;
    if (p != k)
      for (int j = threadIdx.x; j < N; j += FT) {
        const LuT t = a[k * N + j];
        a[k * N + j] = a[p * N + j];
        a[p * N + j] = t;
      }
    __syncthreads();
    const LuT pivot = a[k * N + k];
    if (pivot == 0) {
      bad = 1;
      continue;
    }
    // The multipliers first (the pivot's reciprocal: one division a column), then the
    // trailing rows' update, a warp per row and lanes along it, with no barrier between rows
    // so that a warp's rows overlap (a division and a warp barrier in each row had chained
    // them through their latency).
    const LuT inverse = 1 / pivot;
    for (int i = k + 1 + threadIdx.x; i < N; i += FT) a[i * N + k] *= inverse;
    __syncthreads();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll 2
    for (int i = k + 1 + warp; i < N; i += FT / 32) {
      const LuT l = a[i * N + k];
      for (int j = k + 1 + lane; j < N; j += 32) a[i * N + j] -= l * a[k * N + j];
    }
    __syncthreads();
  }
  for (int i = threadIdx.x; i < N; i += FT) perm[i] = rows[i];
  return bad;
}

// The block's system factored: entry(i, j) gives entry (i, j) of the matrix. Its LU factors
// with partial pivoting go to lu, column-major in the module's LuT, where a warp's solve reads
// each column in one coalesced load, and U's diagonal as its reciprocals, so that the solves'
// back substitutions multiply where a division would sit on their dependent chain; perm[k] :=
// the row of the original system that row k of the factors came from. Returns 1 at a zero
// pivot (a NaN pivot runs on, to a non-finite solution the caller reports as such). All FT
// threads call, with lu_factor_shared_bytes(N, sizeof(LuT)) bytes of dynamic shared memory.
// The elimination runs in LuT too: in fp32 for the BDF's Newton matrix, whose factors are
// stored in fp32 anyway, it moves half the shared-memory bytes that bound it.
template <class Entry>
__device__ int lu_factor(const Entry& entry, LuT* lu, int* perm) {
  extern __shared__ __align__(16) unsigned char lu_shared_bytes[];
  LuT* a = reinterpret_cast<LuT*>(lu_shared_bytes);
  for (int e = threadIdx.x; e < N * N; e += FT) a[e] = (LuT)entry(e / N, e % N);
  __syncthreads();
  const int bad = lu_factor_shared(a, perm);
  for (int e = threadIdx.x; e < N * N; e += FT) {
    const LuT v = a[(e % N) * N + e / N];
    lu[e] = e % N == e / N ? 1 / v : v;
  }
  return bad;
}

// A warp's solves keep x in registers, lane l holding x[l + 32 t]: lu_gather loads it from the
// warp's shared x in the factors' row order (perm), lu_scatter stores it back.
template <int T>
__device__ void lu_gather(const double* x, const int* perm, int lane, double (&xr)[T]) {
#pragma unroll
  for (int t = 0; t < T; ++t) {
    const int i = lane + 32 * t;
    xr[t] = i < N ? x[perm[i]] : 0.0;
  }
  __syncwarp();
}

template <int T>
__device__ void lu_scatter(const double (&xr)[T], int lane, double* x) {
#pragma unroll
  for (int t = 0; t < T; ++t) {
    const int i = lane + 32 * t;
    if (i < N) x[i] = xr[t];
  }
  __syncwarp();
}

// lu_solve_warp in two parts, with the lane's rows of the factors (rows lane + 32 t) in its
// registers: lu_load_rows issues all of a system's loads at once (the caller may issue its
// own before using them), lu_solve_rows then takes the solve's 2N dependent column steps,
// which wait on shuffles alone, in the factors' precision. For systems whose T N factors fit
// a lane's registers (N <= 64 in fp32), rows[T][M] with T = ceil(N / 32) and M = N; other
// shapes (the placeholder of a caller's discarded branch) compile to nothing.
template <int T, int M>
__device__ void lu_load_rows(const LuT* lu, int lane, LuT (&rows)[T][M]) {
  if constexpr (M == N && T == (N + 31) / 32) {
#pragma unroll
    for (int j = 0; j < N; ++j)
#pragma unroll
      for (int t = 0; t < T; ++t) {
        const int i = lane + 32 * t;
        rows[t][j] = i < N ? lu[j * N + i] : (LuT)0;
      }
  }
}

template <int T, int M>
__device__ void lu_solve_rows(const LuT (&rows)[T][M], const int* perm, double* x, int lane) {
  if constexpr (M == N && T == (N + 31) / 32) {
    double xd[T];
    lu_gather(x, perm, lane, xd);
    // The substitution in LuT, the factors' precision: in fp32 it adds a backward error of the
    // factorisation's own order, and each column step's shuffle and FMA (the solve's
    // dependent chain, which bounds the BDF's Newton kernel) are one fp32 instruction each
    // instead of two shuffles, a conversion and an fp64 FMA.
    LuT xr[T];
#pragma unroll
    for (int t = 0; t < T; ++t) xr[t] = (LuT)xd[t];
#pragma unroll
    for (int j = 0; j < N - 1; ++j) {
      const LuT xj = __shfl_sync(0xffffffffu, xr[j / 32], j % 32);
#pragma unroll
      for (int t = j / 32; t < T; ++t)
        if (lane + 32 * t > j) xr[t] -= rows[t][j] * xj;
    }
#pragma unroll
    for (int j = N - 1; j >= 0; --j) {
      if (lane == j % 32) xr[j / 32] *= rows[j / 32][j];
      const LuT xj = __shfl_sync(0xffffffffu, xr[j / 32], j % 32);
#pragma unroll
      for (int t = 0; t <= j / 32; ++t)
        if (lane + 32 * t < j) xr[t] -= rows[t][j] * xj;
    }
#pragma unroll
    for (int t = 0; t < T; ++t) xd[t] = xr[t];
    lu_scatter(xd, lane, x);
  }
}

// x (N values in the warp's shared memory) := A^-1 x with A's factors lu (lu_factor's layout)
// and perm; every lane of the warp calls. Column by column: lane l holds x[l + 32 t] in
// registers, the finished x[j] is broadcast by a shuffle and the lanes below (L) or above (U)
// subtract their entry of column j times it.
__device__ void lu_solve_warp(const LuT* lu, const int* perm, double* x, int lane) {
  constexpr int T = (N + 31) / 32;
  double xr[T];
  lu_gather(x, perm, lane, xr);
  // Register indices stay constants (t, tb unrolled), so x never leaves registers.
#pragma unroll
  for (int tb = 0; tb < T; ++tb) {
#pragma unroll 2
    for (int jj = 0; jj < 32; ++jj) {
      const int j = 32 * tb + jj;
      if (j >= N - 1) break;
      const double xj = __shfl_sync(0xffffffffu, xr[tb], jj);
      const LuT* col = lu + j * N;
#pragma unroll
      for (int t = tb; t < T; ++t) {
        const int i = lane + 32 * t;
        if (i > j && i < N) xr[t] -= (double)col[i] * xj;
      }
    }
  }
#pragma unroll
  for (int tb = T - 1; tb >= 0; --tb) {
#pragma unroll 2
    for (int jj = 31; jj >= 0; --jj) {
      const int j = 32 * tb + jj;
      if (j >= N) continue;
      const LuT* col = lu + j * N;
      if (lane == jj) xr[tb] *= (double)col[j];
      const double xj = __shfl_sync(0xffffffffu, xr[tb], jj);
#pragma unroll
      for (int t = 0; t <= tb; ++t) {
        const int i = lane + 32 * t;
        if (i < j) xr[t] -= (double)col[i] * xj;
      }
    }
  }
  lu_scatter(xr, lane, x);
}
)";
}

}  // namespace dualjit::solvers
