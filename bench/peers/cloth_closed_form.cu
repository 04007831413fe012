// The hand-written CUDA peer of bench/cloth_step.cpp: the cloth step's energy, gradient and
// full block-CSR Hessian in one kernel, written as a CUDA programmer who knows the energy would:
// closed-form spring derivatives (d = xi - xj, s = |d|^2 / l^2 - 1, c = 2 h^2 k:
// g_i += c s d, H_ii += K, H_ij = -K with K = c (s I + 2 d d^T / l^2)), one thread per vertex
// owning its row of blocks (each spring evaluated from both ends, every block stored once, no
// atomics), rest lengths precomputed per stored block, the energy summed per GPU block; and a
// staged variant whose rows go out through shared memory.
// Compiled at run time by NVRTC (cuda::SourceModule) from this file.
constexpr int kThreads = 256;

// Row i: its gradient, its energy share (each spring counted at its lower end) and its blocks,
// stored at blocks + 9 (s - first) for the row's stored block s.
__device__ __forceinline__ double row(long long i, const int* row_ptr, const int* col_idx,
                                      const double* slot_rest, const double* x,
                                      const double* xhat, double m, double k, double h, double gx,
                                      double gy, double gz, double* grad, double* blocks,
                                      long long first) {
  const double h2 = h * h, c = 2.0 * h2 * k;
  const double x0 = x[3 * i], x1 = x[3 * i + 1], x2 = x[3 * i + 2];
  const double r0 = x0 - xhat[3 * i], r1 = x1 - xhat[3 * i + 1], r2 = x2 - xhat[3 * i + 2];
  double g0 = m * r0 - h2 * m * gx, g1 = m * r1 - h2 * m * gy, g2 = m * r2 - h2 * m * gz;
  double e = 0.5 * m * (r0 * r0 + r1 * r1 + r2 * r2) - h2 * m * (gx * x0 + gy * x1 + gz * x2);
  double H[9] = {m, 0, 0, 0, m, 0, 0, 0, m};
  int diag = -1;
  for (int s = row_ptr[i]; s < row_ptr[i + 1]; ++s) {
    const int j = col_idx[s];
    if (j == i) {
      diag = s;
      continue;
    }
    const double l = slot_rest[s], il2 = 1.0 / (l * l);
    const double d0 = x0 - x[3 * j], d1 = x1 - x[3 * j + 1], d2 = x2 - x[3 * j + 2];
    const double sg = (d0 * d0 + d1 * d1 + d2 * d2) * il2 - 1.0;
    g0 += c * sg * d0;
    g1 += c * sg * d1;
    g2 += c * sg * d2;
    if (i < j) e += 0.5 * h2 * k * l * l * sg * sg;
    const double d[3] = {d0, d1, d2};
    double* out = blocks + 9ll * (s - first);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        const double kab = c * ((a == b ? sg : 0.0) + 2.0 * d[a] * d[b] * il2);
        H[3 * a + b] += kab;
        out[3 * a + b] = -kab;
      }
  }
  double* out = blocks + 9ll * (diag - first);
  for (int q = 0; q < 9; ++q) out[q] = H[q];
  grad[3 * i] = g0;
  grad[3 * i + 1] = g1;
  grad[3 * i + 2] = g2;
  return e;
}

__device__ __forceinline__ void block_energy(double e, double* sh, double* energy_partial) {
  sh[threadIdx.x] = e;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) energy_partial[blockIdx.x] = sh[0];
}

// Rows written straight from registers.
extern "C" __global__ void __launch_bounds__(kThreads) cloth_closed_form(
    long long n, const int* row_ptr, const int* col_idx, const double* slot_rest,
    const double* x, const double* xhat, double m, double k, double h, double gx, double gy,
    double gz, double* grad, double* vals, double* energy_partial) {
  __shared__ double sh[kThreads];
  const long long i = (long long)blockIdx.x * kThreads + threadIdx.x;
  double e = 0.0;
  if (i < n) e = row(i, row_ptr, col_idx, slot_rest, x, xhat, m, k, h, gx, gy, gz, grad, vals, 0);
  block_energy(e, sh, energy_partial);
}

// The GPU block's rows of blocks assembled in shared memory and written out once, coalesced
// (the write pattern of a row-owning kernel done well): `tile` holds the blocks of rows
// [n0, n0 + kThreads), whose first block is row_ptr[n0].
extern "C" __global__ void __launch_bounds__(kThreads) cloth_closed_form_staged(
    long long n, const int* row_ptr, const int* col_idx, const double* slot_rest,
    const double* x, const double* xhat, double m, double k, double h, double gx, double gy,
    double gz, double* grad, double* vals, double* energy_partial) {
  extern __shared__ double tile[];
  __shared__ double sh[kThreads];
  const long long n0 = (long long)blockIdx.x * kThreads;
  const long long n1 = n0 + kThreads < n ? n0 + kThreads : n;
  const long long first = row_ptr[n0];
  const long long count = ((long long)row_ptr[n1] - first) * 9;
  const long long i = n0 + threadIdx.x;
  double e = 0.0;
  if (i < n)
    e = row(i, row_ptr, col_idx, slot_rest, x, xhat, m, k, h, gx, gy, gz, grad, tile, first);
  __syncthreads();
  for (long long q = threadIdx.x; q < count; q += kThreads) vals[first * 9 + q] = tile[q];
  block_energy(e, sh, energy_partial);
}

// The energy: the per-block partials summed by one block.
extern "C" __global__ void __launch_bounds__(kThreads) cloth_energy_sum(const double* partial,
                                                                        long long n,
                                                                        double* energy) {
  __shared__ double sh[kThreads];
  double e = 0.0;
  for (long long b = threadIdx.x; b < n; b += kThreads) e += partial[b];
  sh[threadIdx.x] = e;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) *energy = sh[0];
}
