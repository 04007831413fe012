// The memory pattern of the two FUN3D assembly strategies without the Roe arithmetic: the
// node-owned gather by column (jit's staged GatherByColumn: blocks own node ranges, a tile per
// element side, off-diagonal blocks stored into their BCSR slots, diagonal blocks and residual
// rows summed per node in shared memory and stored once) against the staged scatter (diagonal
// and residual atomics, Aoff stores), both with the real kernel's gathers (Q of both vertices,
// the area vector), on the edge structure of the 97^3 tet box, natural and random order.
// Variants of the gather: Aoff written contiguously (incidence order instead of BCSR slots),
// no Aoff at all, no gathers, tiles of 32 and 96. And strategy 2 at its best: the scatter with
// vertex 0's rows owned by node blocks (no atomics there), vertex 1's added atomically.
// Build and run (no dualjit needed): nvcc -O3 -arch=sm_90 gather_write_out.cu && ./a.out
// Results: bench/RESULTS.md, "The memory pattern alone" and "Every strategy's memory pattern
// alone against issue 4's target".
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "median_ms.cuh"
// AOFF: 0 BCSR slots, 1 contiguous (incidence order), 2 none.
template <int T, int AOFF, bool GATHER>
__global__ void __launch_bounds__(T)
    gather_owned(const int* __restrict__ conn, const double* __restrict__ Q,
                 const double* __restrict__ area, const long long* __restrict__ ptr0,
                 const long long* __restrict__ ptr1, const long long* __restrict__ elem1,
                 const long long* __restrict__ slot0, const long long* __restrict__ slot1,
                 const long long* __restrict__ blk, long long ne, double* __restrict__ diag,
                 float* __restrict__ off, double* __restrict__ res) {
  __shared__ double st_d[T * 25], st_r[T * 5], acc_d[T * 25], acc_r[T * 5];
  __shared__ long long s_slot[T];
  __shared__ int s_ptr[T + 1];
  const long long n0 = blk[blockIdx.x], n1 = blk[blockIdx.x + 1];
  const int nn = (int)(n1 - n0);
  for (int i = threadIdx.x; i < nn * 25; i += T) acc_d[i] = 0;
  for (int i = threadIdx.x; i < nn * 5; i += T) acc_r[i] = 0;
  for (int lv = 0; lv < 2; ++lv) {
    const long long* ptr = lv ? ptr1 : ptr0;
    const long long p0 = ptr[n0], p1 = ptr[n1];
    const double sg = lv ? -1.0 : 1.0;
    for (long long t0 = p0; t0 < p1; t0 += T) {
      const int cnt = (int)min((long long)T, p1 - t0);
      __syncthreads();
      for (int m = threadIdx.x; m <= nn; m += T) {
        long long p = ptr[n0 + m] - t0;
        s_ptr[m] = (int)max(0LL, min((long long)cnt, p));
      }
      if (threadIdx.x < cnt) {
        const long long p = t0 + threadIdx.x;
        const long long e = lv ? elem1[p] : p;
        double ql[5], qr[5], s;
        if (GATHER) {
          const int a = conn[2 * e], b = conn[2 * e + 1];
          for (int k = 0; k < 5; ++k) ql[k] = Q[a * 5LL + k], qr[k] = Q[b * 5LL + k];
          s = area[3 * e] + area[3 * e + 1] + area[3 * e + 2];
        } else {
          for (int k = 0; k < 5; ++k) ql[k] = k + e, qr[k] = k - e;
          s = 1.0 + (e & 7);
        }
        for (int k = 0; k < 5; ++k) {
          st_r[threadIdx.x * 5 + k] = s * (ql[k] - qr[k]);
          for (int j = 0; j < 5; ++j)
            st_d[threadIdx.x * 25 + k * 5 + j] = (lv ? qr[k] : ql[k]) * s + j;
        }
        s_slot[threadIdx.x] = AOFF == 1 ? lv * ne + p : lv ? slot1[p] : slot0[p];
      }
      __syncthreads();
      if (AOFF < 2)
#pragma unroll 4
        for (int i = threadIdx.x; i < cnt * 25; i += T) {
          const int f = i / 25, q = i - f * 25;
          off[s_slot[f] * 25 + q] = (float)(-sg * st_d[i]);
        }
      for (int i = threadIdx.x; i < nn * 25; i += T) {
        const int m = i / 25, q = i - m * 25;
        double acc = 0;
        for (int f = s_ptr[m]; f < s_ptr[m + 1]; ++f) acc += st_d[f * 25 + q];
        acc_d[i] += sg * acc;
      }
      for (int i = threadIdx.x; i < nn * 5; i += T) {
        const int m = i / 5, q = i - m * 5;
        double acc = 0;
        for (int f = s_ptr[m]; f < s_ptr[m + 1]; ++f) acc += st_r[f * 5 + q];
        acc_r[i] += sg * acc;
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < nn * 25; i += T) diag[n0 * 25 + i] = acc_d[i];
  for (int i = threadIdx.x; i < nn * 5; i += T) res[n0 * 5 + i] = acc_r[i];
}
constexpr int T = 64;
// Edge e staged as the scatters stage it, from the real gathers (values stand in for the Roe
// flux's): its residual row r[5] and both vertices' blocks d[0..24], d[25..49]. Returns the
// edge's vertices.
__device__ int2 stage_edge(const int* __restrict__ conn, const double* __restrict__ Q,
                           const double* __restrict__ area, long long e, double* r, double* d) {
  const int a = conn[2 * e], b = conn[2 * e + 1];
  double ql[5], qr[5];
  for (int k = 0; k < 5; ++k) ql[k] = Q[a * 5LL + k], qr[k] = Q[b * 5LL + k];
  const double s = area[3 * e] + area[3 * e + 1] + area[3 * e + 2];
  for (int k = 0; k < 5; ++k) {
    r[k] = s * (ql[k] - qr[k]);
    for (int j = 0; j < 5; ++j) {
      d[k * 5 + j] = ql[k] * s + j;
      d[25 + k * 5 + j] = qr[k] * s + j;
    }
  }
  return make_int2(a, b);
}
// Scatter with the same gathers: staged, diag/res atomics, Aoff stores (the dualjit write-out).
__global__ void __launch_bounds__(T)
    scatter_staged(const int* __restrict__ conn, const double* __restrict__ Q,
                   const double* __restrict__ area, const long long* __restrict__ slot0,
                   const long long* __restrict__ slot1e, long long ne, double* __restrict__ diag,
                   float* __restrict__ off, double* __restrict__ res) {
  __shared__ double st_d[T * 51], st_r[T * 5];
  __shared__ int s_node[T * 2];
  const long long e0 = (long long)blockIdx.x * T;
  const int n_here = (int)min((long long)T, ne - e0);
  if (threadIdx.x < n_here) {
    const int2 ab = stage_edge(conn, Q, area, e0 + threadIdx.x, st_r + threadIdx.x * 5,
                               st_d + threadIdx.x * 51);
    s_node[2 * threadIdx.x] = ab.x, s_node[2 * threadIdx.x + 1] = ab.y;
  }
  __syncthreads();
#pragma unroll 4
  for (int i = threadIdx.x; i < n_here * 5; i += T) {
    const int f = i / 5, q = i - f * 5;
    atomicAdd(&res[s_node[2 * f] * 5LL + q], st_r[i]);
    atomicAdd(&res[s_node[2 * f + 1] * 5LL + q], -st_r[i]);
  }
#pragma unroll 4
  for (int i = threadIdx.x; i < n_here * 25; i += T) {
    const int f = i / 25, q = i - f * 25;
    const long long e = e0 + f;
    atomicAdd(&diag[s_node[2 * f] * 25LL + q], st_d[f * 51 + q]);
    atomicAdd(&diag[s_node[2 * f + 1] * 25LL + q], -st_d[f * 51 + 25 + q]);
    off[slot0[e] * 25 + q] = (float)st_d[f * 51 + 25 + q];
    off[slot1e[e] * 25 + q] = (float)(-st_d[f * 51 + q]);
  }
}
// Strategy 2 at its best: blocks own the nodes [n0, n1) as vertex 0 (edges sorted by vertex 0,
// so their edges are one range), sum those rows and diagonal blocks in shared memory and store
// them once (no atomics for vertex 0 at all); vertex 1's residual rows and diagonal blocks are
// added with atomics; both Aoff blocks are stored (row v0's are consecutive slots).
__global__ void __launch_bounds__(T)
    scatter_owned_v0(const int* __restrict__ conn, const double* __restrict__ Q,
                     const double* __restrict__ area, const long long* __restrict__ ptr0,
                     const long long* __restrict__ slot01, const long long* __restrict__ slot10,
                     const long long* __restrict__ blk, double* __restrict__ diag,
                     float* __restrict__ off, double* __restrict__ res) {
  __shared__ double st_d[T * 51], st_r[T * 5], acc_d[T * 25], acc_r[T * 5];
  __shared__ int s_ptr[T + 1], s_b[T];
  const long long n0 = blk[blockIdx.x], n1 = blk[blockIdx.x + 1];
  const int nn = (int)(n1 - n0);
  for (int i = threadIdx.x; i < nn * 25; i += T) acc_d[i] = 0;
  for (int i = threadIdx.x; i < nn * 5; i += T) acc_r[i] = 0;
  const long long p0 = ptr0[n0], p1 = ptr0[n1];
  for (long long t0 = p0; t0 < p1; t0 += T) {
    const int cnt = (int)min((long long)T, p1 - t0);
    __syncthreads();
    for (int m = threadIdx.x; m <= nn; m += T)
      s_ptr[m] = (int)max(0LL, min((long long)cnt, ptr0[n0 + m] - t0));
    if (threadIdx.x < cnt) {
      s_b[threadIdx.x] = stage_edge(conn, Q, area, t0 + threadIdx.x, st_r + threadIdx.x * 5,
                                    st_d + threadIdx.x * 51)
                             .y;
    }
    __syncthreads();
#pragma unroll 4
    for (int i = threadIdx.x; i < cnt * 5; i += T) {
      const int f = i / 5, q = i - f * 5;
      atomicAdd(&res[s_b[f] * 5LL + q], -st_r[i]);
    }
#pragma unroll 4
    for (int i = threadIdx.x; i < cnt * 25; i += T) {
      const int f = i / 25, q = i - f * 25;
      const long long e = t0 + f;
      atomicAdd(&diag[s_b[f] * 25LL + q], -st_d[f * 51 + 25 + q]);
      off[slot01[e] * 25 + q] = (float)st_d[f * 51 + 25 + q];
      off[slot10[e] * 25 + q] = (float)(-st_d[f * 51 + q]);
    }
    for (int i = threadIdx.x; i < nn * 25; i += T) {
      const int m = i / 25, q = i - m * 25;
      double acc = 0;
      for (int f = s_ptr[m]; f < s_ptr[m + 1]; ++f) acc += st_d[f * 51 + q];
      acc_d[i] += acc;
    }
    for (int i = threadIdx.x; i < nn * 5; i += T) {
      const int m = i / 5, q = i - m * 5;
      double acc = 0;
      for (int f = s_ptr[m]; f < s_ptr[m + 1]; ++f) acc += st_r[f * 5 + q];
      acc_r[i] += acc;
    }
  }
  __syncthreads();
  // Vertex 1's atomics may already have reached these rows: add, do not store.
  for (int i = threadIdx.x; i < nn * 25; i += T) atomicAdd(&diag[n0 * 25 + i], acc_d[i]);
  for (int i = threadIdx.x; i < nn * 5; i += T) atomicAdd(&res[n0 * 5 + i], acc_r[i]);
}
template <class V>
V* up(const std::vector<V>& v) {
  V* d;
  cudaMalloc(&d, v.size() * sizeof(V));
  cudaMemcpy(d, v.data(), v.size() * sizeof(V), cudaMemcpyHostToDevice);
  return d;
}
int main() {
  const int n = 97;
  const long long nn = (long long)n * n * n;
  const long long offs[7] = {1, n, n * n, n + 1, n * n + 1, n * n + n, n * n + n + 1};
  for (int shuffle = 0; shuffle < 2; ++shuffle) {
    std::vector<int> perm(nn);
    for (int i = 0; i < nn; ++i) perm[i] = i;
    if (shuffle) {
      std::mt19937 g(1);
      std::shuffle(perm.begin(), perm.end(), g);
    }
    std::vector<std::pair<int, int>> edges;
    for (long long i = 0; i < nn; ++i)
      for (long long o : offs)
        if (i + o < nn) {
          int a = perm[i], b = perm[i + o];
          if (a > b) std::swap(a, b);
          edges.push_back({a, b});
        }
    std::sort(edges.begin(), edges.end());
    const long long ne = edges.size();
    std::vector<int> conn(2 * ne);
    for (long long e = 0; e < ne; ++e)
      conn[2 * e] = edges[e].first, conn[2 * e + 1] = edges[e].second;
    // BCSR off-diagonal slots: row-sorted columns
    std::vector<long long> rp(nn + 1, 0);
    for (auto& [a, b] : edges) rp[a + 1]++, rp[b + 1]++;
    for (long long i = 0; i < nn; ++i) rp[i + 1] += rp[i];
    std::vector<std::vector<std::pair<int, long long>>> rows(nn);
    for (long long e = 0; e < ne; ++e) {
      rows[edges[e].first].push_back({edges[e].second, 2 * e});
      rows[edges[e].second].push_back({edges[e].first, 2 * e + 1});
    }
    std::vector<long long> s01(ne), s10(ne);  // slot of block (v0,v1), (v1,v0)
    for (long long i = 0; i < nn; ++i) {
      std::sort(rows[i].begin(), rows[i].end());
      for (size_t k = 0; k < rows[i].size(); ++k) {
        long long id = rows[i][k].second;
        (id & 1 ? s10 : s01)[id >> 1] = rp[i] + k;
      }
    }
    // incidence per side: lv0 = edges in order (sorted by v0); lv1 = sorted by v1
    std::vector<long long> ptr0(nn + 1, 0), ptr1(nn + 1, 0);
    for (auto& [a, b] : edges) ptr0[a + 1]++, ptr1[b + 1]++;
    for (long long i = 0; i < nn; ++i) ptr0[i + 1] += ptr0[i], ptr1[i + 1] += ptr1[i];
    std::vector<long long> elem1(ne), fill(ptr1.begin(), ptr1.end() - 1);
    for (long long e = 0; e < ne; ++e) elem1[fill[edges[e].second]++] = e;
    std::vector<long long> slot0(ne),
        slot1(ne);  // per incidence: lv0 writes (v1,v0); lv1 writes (v0,v1)
    for (long long p = 0; p < ne; ++p) slot0[p] = s10[p], slot1[p] = s01[elem1[p]];
    // Node blocks (begin at blocks[b], end at blocks[b + 1]) with at most `cap` nodes and
    // `cap` incidences per side.
    const auto blocks_for = [&](long long cap) {
      std::vector<long long> bl{0};
      for (long long i = 0; i < nn;) {
        long long j = i;
        while (j < nn && j - i < cap && ptr0[j + 1] - ptr0[i] <= cap &&
               ptr1[j + 1] - ptr1[i] <= cap)
          ++j;
        if (j == i) j = i + 1;
        bl.push_back(j);
        i = j;
      }
      return bl;
    };
    const std::vector<long long> blk = blocks_for(T), b32 = blocks_for(32), b96 = blocks_for(96);
    std::vector<double> Q(nn * 5), area(ne * 3);
    std::mt19937 g(2);
    std::uniform_real_distribution<double> U(0.5, 1.5);
    for (auto& x : Q) x = U(g);
    for (auto& x : area) x = U(g);
    int* dc = up(conn);
    double* dQ = up(Q);
    double* dA = up(area);
    long long *dp0 = up(ptr0), *dp1 = up(ptr1), *de1 = up(elem1), *ds0 = up(slot0),
              *ds1 = up(slot1), *db = up(blk), *d01 = up(s01), *d10 = up(s10), *db32 = up(b32),
              *db96 = up(b96);
    double *dd, *dr;
    float* doff;
    cudaMalloc(&dd, nn * 25 * 8);
    cudaMalloc(&dr, nn * 5 * 8);
    cudaMalloc(&doff, ne * 2 * 25 * 4);
    const long long nb = blk.size() - 1;
    const double bytes = nn * 40.0 + ne * 32.0 + nn * 240.0 + ne * 200.0;
    // One gather variant over the given node blocks, median of 15 launches.
    const auto owned = [&](auto kernel, long long* blocks, long long n_blocks, int threads) {
      return median_ms(
          15, [] {},
          [&] {
            kernel<<<n_blocks, threads>>>(dc, dQ, dA, dp0, dp1, de1, ds0, ds1, blocks, ne, dd, doff,
                                          dr);
          });
    };
    const long long n32 = b32.size() - 1, n96 = b96.size() - 1;
    const float ms1 = owned(gather_owned<64, 0, true>, db, nb, 64);
    const float v1 = owned(gather_owned<64, 1, true>, db, nb, 64);
    const float v2 = owned(gather_owned<64, 2, true>, db, nb, 64);
    const float v3 = owned(gather_owned<64, 0, false>, db, nb, 64);
    const float v4 = owned(gather_owned<32, 0, true>, db32, n32, 32);
    const float v5 = owned(gather_owned<96, 0, true>, db96, n96, 96);
    float v6 = median_ms(
        15, [&] {},
        [&] { cudaMemcpy(doff, doff + ne * 25, ne * 25 * 4, cudaMemcpyDeviceToDevice); });
    printf(
        "variants: contiguous Aoff %.3f, no Aoff %.3f, no gathers %.3f, T32 %.3f, T96 %.3f; copy "
        "635 MB %.3f ms (%.0f GB/s)\n",
        v1, v2, v3, v4, v5, v6, 2 * ne * 100.0 / v6 / 1e6);
    std::vector<double> r1(nn * 5), g1(nn * 25);
    cudaMemcpy(r1.data(), dr, nn * 40, cudaMemcpyDeviceToHost);
    cudaMemcpy(g1.data(), dd, nn * 200, cudaMemcpyDeviceToHost);
    float ms2 = median_ms(
        15,
        [&] {
          cudaMemset(dd, 0, nn * 200);
          cudaMemset(dr, 0, nn * 40);
        },
        [&] { scatter_staged<<<(ne + T - 1) / T, T>>>(dc, dQ, dA, d01, d10, ne, dd, doff, dr); });
    std::vector<double> r2(nn * 5), g2(nn * 25);
    cudaMemcpy(r2.data(), dr, nn * 40, cudaMemcpyDeviceToHost);
    cudaMemcpy(g2.data(), dd, nn * 200, cudaMemcpyDeviceToHost);
    double err = 0;
    for (long long i = 0; i < nn * 5; ++i) err = std::max(err, std::abs(r1[i] - r2[i]));
    for (long long i = 0; i < nn * 25; ++i) err = std::max(err, std::abs(g1[i] - g2[i]));
    const float ms3 = median_ms(
        15,
        [&] {
          cudaMemset(dd, 0, nn * 200);
          cudaMemset(dr, 0, nn * 40);
        },
        [&] { scatter_owned_v0<<<nb, T>>>(dc, dQ, dA, dp0, d01, d10, db, dd, doff, dr); });
    cudaMemcpy(r2.data(), dr, nn * 40, cudaMemcpyDeviceToHost);
    cudaMemcpy(g2.data(), dd, nn * 200, cudaMemcpyDeviceToHost);
    double err3 = 0;
    for (long long i = 0; i < nn * 5; ++i) err3 = std::max(err3, std::abs(r1[i] - r2[i]));
    for (long long i = 0; i < nn * 25; ++i) err3 = std::max(err3, std::abs(g1[i] - g2[i]));
    printf("scatter, vertex 0 owned (strategy 2 at its best): %.3f ms (maxdiff %.2e)\n", ms3, err3);
    printf(
        "order=%s nodes=%lld edges=%lld blocks=%lld floor-bytes=%.2f GB: owned gather %.3f ms, "
        "staged scatter %.3f ms (maxdiff %.2e) %s\n",
        shuffle ? "random" : "natural", nn, ne, nb, bytes / 1e9, ms1, ms2, err,
        cudaGetErrorString(cudaGetLastError()));
    cudaFree(dc);
    cudaFree(dQ);
    cudaFree(dA);
    cudaFree(dp0);
    cudaFree(dp1);
    cudaFree(de1);
    cudaFree(ds0);
    cudaFree(ds1);
    cudaFree(db);
    cudaFree(db32);
    cudaFree(db96);
    cudaFree(d01);
    cudaFree(d10);
    cudaFree(dd);
    cudaFree(dr);
    cudaFree(doff);
  }
}
