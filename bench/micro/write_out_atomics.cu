// Throughput of the FUN3D write-out pattern without any arithmetic: per edge 2 x 25 fp64 adds
// into the nodes' diagonal blocks (as atomics, as plain stores, as fp32 atomics), and the whole
// write-out (diagonal atomics, Aoff fp32 stores by rows or edge-based, residual atomics; or
// edge-based without the diagonal, then the diagonal summed from Aoff's columns), on the edge
// structure of the 97^3 tet box (7 forward neighbours per node), natural and random node order.
// Build and run (no dualjit needed): nvcc -O3 -arch=sm_90 write_out_atomics.cu && ./a.out
// Results: bench/RESULTS.md, "What bounds the FUN3D assembly".
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "median_ms.cuh"
// layout 0: Aoff by rows (the (b, a) block at a scattered slot); 1: edge-based storage (both
// blocks at 2e, 2e + 1); 2: edge-based without the diagonal atomics (the diagonal is then
// summed from Aoff's columns by diag_from_columns, the design that drops the atomics).
__global__ void full_out(const int* __restrict__ conn, double* __restrict__ diag,
                         float* __restrict__ off, double* __restrict__ res, long long n_edges,
                         int layout) {
  const long long e0 = (long long)blockIdx.x * 64;
  const int n_here = (int)min(64LL, n_edges - e0);
  for (int i = threadIdx.x; i < n_here * 10; i += blockDim.x) {
    const int f = i / 10, r = i - f * 10, v = r / 5, q = r - v * 5;
    atomicAdd(&res[(long long)conn[(e0 + f) * 2 + v] * 5 + q], 1e-3 * q);
  }
  for (int i = threadIdx.x; i < n_here * 25; i += blockDim.x) {
    const int f = i / 25, q = i - f * 25;
    const long long e = e0 + f;
    const long long a = conn[e * 2], b = conn[e * 2 + 1];
    if (layout < 2) {
      atomicAdd(&diag[a * 25 + q], 1e-3 * q);
      atomicAdd(&diag[b * 25 + q], -1e-3 * q);
    }
    off[(2 * e) * 25 + q] = 1e-3f * q;
    const long long sj = layout == 0 ? 2 * min(n_edges - 1, b * 7 + (e % 7)) + 1 : 2 * e + 1;
    off[sj * 25 + q] = -1e-3f * q;
  }
}
// diag[i] = -(sum of the blocks of column i): the conservative flux's diagonal from edge-based
// Aoff, node by node (25 threads per node, fp64 sums of the fp32 blocks), no atomics.
__global__ void diag_from_columns(const long long* __restrict__ ptr, const int* __restrict__ slot,
                                  const float* __restrict__ off, double* __restrict__ diag,
                                  long long nn) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long node = t / 25;
  const int q = (int)(t - node * 25);
  if (node >= nn) return;
  double s = 0;
  for (long long k = ptr[node]; k < ptr[node + 1]; ++k) s -= off[(long long)slot[k] * 25 + q];
  diag[node * 25 + q] = s;
}
__global__ void diag_red(const int* __restrict__ conn, double* __restrict__ diag, long long n_edges,
                         int mode) {
  // block of 64 edges; 64 threads sweep the flattened (edge, vertex, entry) range
  const long long e0 = (long long)blockIdx.x * 64;
  const int n_here = (int)min(64LL, n_edges - e0);
  for (int i = threadIdx.x; i < n_here * 50; i += blockDim.x) {
    const int f = i / 50, r = i - f * 50, v = r / 25, q = r - v * 25;
    const long long node = conn[(e0 + f) * 2 + v];
    const double val = 1e-3 * (q + 1) * (v ? -1 : 1);
    double* p = &diag[node * 25 + q];
    if (mode == 0)
      atomicAdd(p, val);
    else if (mode == 1)
      *p = val;
    else if (mode == 2)
      atomicAdd((float*)p, (float)val);
  }
}
int main() {
  // the tet box ordering: edges sorted by first vertex, ~7 forward neighbours at offsets
  const int n = 97;
  const long long nn = (long long)n * n * n;
  std::vector<int> conn;
  const long long offs[7] = {1, n, n * n, n + 1, n * n + 1, n * n + n, n * n + n + 1};
  for (long long i = 0; i < nn; ++i)
    for (long long o : offs)
      if (i + o < nn) {
        conn.push_back((int)i);
        conn.push_back((int)(i + o));
      }
  const long long ne = conn.size() / 2;
  for (int shuffle = 0; shuffle < 2; ++shuffle) {
    std::vector<int> c = conn;
    if (shuffle) {
      std::vector<int> perm(nn);
      for (int i = 0; i < nn; ++i) perm[i] = i;
      std::mt19937 g(1);
      std::shuffle(perm.begin(), perm.end(), g);
      for (auto& x : c) x = perm[x];
    }
    int* dc;
    double* dd;
    cudaMalloc(&dc, c.size() * 4);
    cudaMalloc(&dd, nn * 25 * 8);
    cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice);
    const char* names[3] = {"fp64 RED", "fp64 store", "fp32 RED"};
    for (int mode = 0; mode < 3; ++mode) {
      for (int threads : {64, 128, 256}) {
        const float ms = median_ms(
            11, [&] { cudaMemset(dd, 0, nn * 25 * 8); },
            [&] { diag_red<<<(ne + 63) / 64, threads>>>(dc, dd, ne, mode); });
        printf("%s order=%s edges=%lld threads=%d: %.3f ms (%.1f G ops/s)\n", names[mode],
               shuffle ? "random" : "natural", ne, threads, ms, ne * 50 / (ms * 1e6));
      }
    }
    {
      float* doff;
      double* dr;
      cudaMalloc(&doff, ne * 2 * 25 * 4);
      cudaMalloc(&dr, nn * 5 * 8);
      const char* layouts[3] = {"Aoff by rows", "edge-based Aoff", "edge-based Aoff, no diag RED"};
      for (int layout = 0; layout < 3; ++layout) {
        const float ms = median_ms(
            11,
            [&] {
              cudaMemset(dd, 0, nn * 25 * 8);
              cudaMemset(dr, 0, nn * 5 * 8);
            },
            [&] { full_out<<<(ne + 63) / 64, 64>>>(dc, dd, doff, dr, ne, layout); });
        printf("full write-out (%s, residual RED), order=%s: %.3f ms\n", layouts[layout],
               shuffle ? "random" : "natural", ms);
      }
      // Node i's column blocks in edge-based storage: (v1, v0) of its edges as v0 (slot
      // 2e + 1), (v0, v1) of its edges as v1 (slot 2e).
      std::vector<long long> ptr(nn + 1, 0);
      for (long long e = 0; e < ne; ++e) {
        ++ptr[c[2 * e] + 1];
        ++ptr[c[2 * e + 1] + 1];
      }
      for (long long i = 0; i < nn; ++i) ptr[i + 1] += ptr[i];
      std::vector<int> slot(2 * ne);
      std::vector<long long> at(ptr.begin(), ptr.end() - 1);
      for (long long e = 0; e < ne; ++e) {
        slot[at[c[2 * e]]++] = (int)(2 * e + 1);
        slot[at[c[2 * e + 1]]++] = (int)(2 * e);
      }
      long long* dp;
      int* ds;
      cudaMalloc(&dp, ptr.size() * 8);
      cudaMalloc(&ds, slot.size() * 4);
      cudaMemcpy(dp, ptr.data(), ptr.size() * 8, cudaMemcpyHostToDevice);
      cudaMemcpy(ds, slot.data(), slot.size() * 4, cudaMemcpyHostToDevice);
      const float ms = median_ms(
          11, [] {},
          [&] { diag_from_columns<<<(nn * 25 + 255) / 256, 256>>>(dp, ds, doff, dd, nn); });
      printf("diagonal from Aoff's columns (edge-based, fp32 blocks), order=%s: %.3f ms\n",
             shuffle ? "random" : "natural", ms);
      cudaFree(dp);
      cudaFree(ds);
      cudaFree(doff);
      cudaFree(dr);
    }
    cudaFree(dc);
    cudaFree(dd);
  }
  printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
