// The store pattern of the tape columns' launches without their arithmetic: dense 54 x 54
// blocks a cell (GRI-3.0's Jacobian, 23,328 bytes) written by blocks of 32 cells (a tile) and
// G columns (a column group), as jit/emit_tape_columns.h lays them out:
// - tiled: [tile][entry][cell of the tile], each warp store one 256-byte line (ColumnStores::
//   Tiled, the row-major layout's first pass); `copy` reads and writes as many bytes, the
//   floor of the pass that then puts tiles in order;
// - colruns: [cell][column][row], the block's 32 runs of G * 54 entries from shared memory
//   (ColumnStores::CellColumns);
// - rowruns: [cell][row][column], row-major blocks straight from the columns' blocks: 32 * 54
//   runs of G entries (16 bytes for pairs), sectors shared with the neighbouring groups.
// Each block puts its entries in shared memory warp by warp (lanes are cells, an odd stride),
// then after a barrier the warps copy them out, consecutive lanes consecutive addresses. The
// grid runs a tile's groups side by side (`tile-major`) or a group's tiles together.
// - cluster-pull, cluster-push: row-major blocks from a thread-block cluster a tile, a block a
//   group (C = 54 / G blocks): each block owns a contiguous 1/C of the tile's rows and writes it
//   whole after the cluster's barrier, its entries read from the groups' shared memory (pull),
//   or pushed there by the groups before the barrier (push). `extra` bytes of shared memory
//   more a block stand for the staged tape slots of the real launch; cluster-rows pulls a warp
//   a row in 16-byte pairs, and alone (`-pulls-only`) or without the cluster's reads
//   (`-stores-only`) says which half costs;
// - aligned-rows: row runs of groups of G columns starting on multiples of G, rows padded to
//   whole sectors (LD = 56) or not;
// - chunked-rows: the same (LD = 54) through a stage of R rows at a time, for groups too wide
//   to stage all 54 rows beside their tape slots.
// Build and run (no dualjit needed):
//   nvcc -O3 -arch=sm_90 -o block_stores block_stores.cu && ./block_stores [CELLS]
// LAYOUTS="aligned chunked cluster-rows cluster tiles" (any of them) runs those families alone,
// after the copy.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "median_ms.cuh"

constexpr int kRows = 54, kCols = 54, kTile = 32, kThreads = 256;
constexpr long long kBlock = kRows * kCols;

enum Layout { Tiled, ColRuns, RowRuns };

__device__ double value(long long e, int o, int c) {
  return 1e-3 * double(e) + o + 1e-2 * c;
}

// Block b: tile and group from the grid order; G columns a group.
template <int G, Layout L>
__global__ void __launch_bounds__(kThreads, 3)
    store_blocks(long long n_cells, int tile_major, double* __restrict__ out) {
  extern __shared__ double stage[];
  constexpr int kEntries = G * kRows;  // a cell's entries of the group
  constexpr int kStride = kEntries | 1;
  const int n_groups = kCols / G;
  const long long n_tiles = (n_cells + kTile - 1) / kTile;
  const long long tile = tile_major ? blockIdx.x / n_groups : blockIdx.x % n_tiles;
  const int g = tile_major ? int(blockIdx.x % n_groups) : int(blockIdx.x / n_tiles);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const long long e = tile * kTile + lane;
  if constexpr (L == Tiled) {
    // Entry k of the group (column-major within the group), a line per warp store.
    double* base = out + tile * kTile * kBlock + (long long)g * kEntries * kTile;
    for (int k = warp; k < kEntries; k += kThreads / 32)
      if (e < n_cells) base[k * kTile + lane] = value(e, k % kRows, g * G + k / kRows);
    return;
  }
  for (int k = warp; k < kEntries; k += kThreads / 32) {
    // ColRuns stage [cell][c][o], RowRuns [cell][o][c]: the run's order.
    const int o = L == ColRuns ? k % kRows : k / G, c = L == ColRuns ? k / kRows : k % G;
    stage[lane * kStride + k] = value(e, o, g * G + c);
  }
  __syncthreads();
  const int cells = int(n_cells - tile * kTile < kTile ? n_cells - tile * kTile : kTile);
  for (int i = threadIdx.x; i < cells * kEntries; i += kThreads) {
    const int cell = i / kEntries, k = i % kEntries;
    const long long row0 = (tile * kTile + cell) * kBlock;
    const long long at =
        L == ColRuns ? row0 + (long long)g * kEntries + k : row0 + (k / G) * kCols + g * G + k % G;
    out[at] = stage[cell * kStride + k];
  }
}

// A block of a cluster a tile: column group g (G columns, the last what is left), its lane's
// cell e and the tile's cells.
struct ClusterBlock {
  int g, gcols, warp, lane, cells;
  long long tile, e;
};

template <int G>
__device__ ClusterBlock cluster_block(long long n_cells, int rank) {
  constexpr int C = (kCols + G - 1) / G;
  ClusterBlock b;
  b.g = rank;
  b.gcols = kCols - rank * G < G ? kCols - rank * G : G;
  b.warp = threadIdx.x >> 5;
  b.lane = threadIdx.x & 31;
  b.tile = blockIdx.x / C;
  b.e = b.tile * kTile + b.lane;
  b.cells = int(n_cells - b.tile * kTile < kTile ? n_cells - b.tile * kTile : kTile);
  return b;
}

// The group's entries of the lane's cell in `stage`, stride doubles a cell, row-major in G.
template <int G>
__device__ void stage_group(const ClusterBlock& b, double* stage, int stride) {
  for (int k = b.warp; k < b.gcols * kRows; k += kThreads / 32) {
    const int o = k / b.gcols, c = k % b.gcols;
    stage[b.lane * stride + o * G + c] = value(b.e, o, b.g * G + c);
  }
}

// A cluster a tile: rank g is column group g (G columns, the last group what is left).
template <int G, bool Push>
__global__ void __launch_bounds__(kThreads)
    cluster_rows(long long n_cells, double* __restrict__ out) {
  namespace cg = cooperative_groups;
  extern __shared__ double stage[];
  constexpr int C = (kCols + G - 1) / G;
  constexpr int kStride = (G * kRows) | 1;
  constexpr long long kTileEntries = kTile * kBlock;
  constexpr long long kSlice = ((kTileEntries + C - 1) / C + 1) / 2 * 2;  // even: 16-byte runs
  cg::cluster_group cluster = cg::this_cluster();
  const ClusterBlock b = cluster_block<G>(n_cells, int(cluster.block_rank()));
  const int g = b.g, gcols = b.gcols, warp = b.warp, lane = b.lane, cells = b.cells;
  const long long tile = b.tile, e = b.e;
  double* base = out + tile * kTileEntries;
  if constexpr (!Push) {
    stage_group<G>(b, stage, kStride);
    cluster.sync();
    const long long n = (long long)cells * kBlock;
    const long long begin = n * g / C, end = n * (g + 1) / C;
    for (long long i = begin + threadIdx.x; i < end; i += kThreads) {
      const int cell = int(i / kBlock), rem = int(i % kBlock);
      const int o = rem / kCols, c = rem % kCols;
      const double* src = cluster.map_shared_rank(stage, c / G);
      base[i] = src[cell * kStride + o * G + c % G];
    }
    cluster.sync();  // no block leaves while another reads its shared memory
  } else {
    for (int k = warp; k < gcols * kRows; k += kThreads / 32) {
      const int o = k / gcols, c = k % gcols;
      const long long i = (long long)lane * kBlock + o * kCols + g * G + c;
      const int owner = int(i / kSlice);
      double* dst = cluster.map_shared_rank(stage, owner);
      dst[i - owner * kSlice] = value(e, o, g * G + c);
    }
    cluster.sync();
    const long long n = (long long)cells * kBlock;
    const long long begin = g * kSlice, end = n < (g + 1) * kSlice ? n : (g + 1) * kSlice;
    if (begin >= end) return;
    const long long pairs = (end - begin) / 2;
    const double2* s2 = reinterpret_cast<const double2*>(stage);
    double2* o2 = reinterpret_cast<double2*>(base + begin);
    for (long long j = threadIdx.x; j < pairs; j += kThreads) o2[j] = s2[j];
    if ((end - begin) % 2 && threadIdx.x == 0) base[end - 1] = stage[end - 1 - begin];
  }
}

// Pull by rows: a warp a (cell, row) of the block's slice of the tile's rows, lane l the
// columns 2l and 2l + 1 (G even: one group's), 16-byte reads and stores, F rows in flight.
// Mode 0 as said; 1 the pulls alone (summed, one store a thread); 2 the stores alone, from the
// block's own shared memory (wrong values: where the time goes, not a layout).
template <int G, int Mode = 0, int F = 4>
__global__ void __launch_bounds__(kThreads)
    cluster_row_runs(long long n_cells, double* __restrict__ out) {
  namespace cg = cooperative_groups;
  static_assert(G % 2 == 0, "pairs of columns in one group");
  extern __shared__ double stage[];
  constexpr int C = (kCols + G - 1) / G;
  constexpr int kStride = G * kRows + 2;
  cg::cluster_group cluster = cg::this_cluster();
  const ClusterBlock b = cluster_block<G>(n_cells, int(cluster.block_rank()));
  const int g = b.g, warp = b.warp, lane = b.lane, cells = b.cells;
  const long long tile = b.tile;
  stage_group<G>(b, stage, kStride);
  cluster.sync();
  const int rows = cells * kRows, begin = rows * g / C, end = rows * (g + 1) / C;
  const int c = 2 * lane;
  const double2* src = lane < kCols / 2
                           ? reinterpret_cast<const double2*>(
                                 Mode == 2 ? stage : cluster.map_shared_rank(stage, c / G))
                           : nullptr;
  double2* base = reinterpret_cast<double2*>(out + tile * kTile * kBlock);
  constexpr int kInFlight = F, kWarps = kThreads / 32;
  double2 sum = {0.0, 0.0};
  for (int r0 = begin + warp; r0 < end; r0 += kWarps * kInFlight) {
    double2 v[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      const int r = r0 + u * kWarps;
      if (src && r < end) v[u] = src[((r / kRows) * kStride + (r % kRows) * G + c % G) / 2];
    }
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      const int r = r0 + u * kWarps;
      if (src && r < end) {
        if (Mode == 1) {
          sum.x += v[u].x, sum.y += v[u].y;
        } else {
          base[(r * kCols + c) / 2] = v[u];
        }
      }
    }
  }
  if (Mode == 1 && src) base[threadIdx.x] = sum;
  cluster.sync();
}

__global__ void copy(long long n, const double2* __restrict__ in, double2* __restrict__ out) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = in[i];
}

template <int G, Layout L>
void measure(const char* name, long long n_cells, int tile_major, double* out, double bytes) {
  const long long n_tiles = (n_cells + kTile - 1) / kTile;
  const size_t shared = L == Tiled ? 0 : size_t(kTile) * ((G * kRows) | 1) * sizeof(double);
  cudaFuncSetAttribute(store_blocks<G, L>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       int(shared));
  const unsigned grid = unsigned(n_tiles * (kCols / G));
  const float ms = median_ms(
      21, [] {}, [&] { store_blocks<G, L><<<grid, kThreads, shared>>>(n_cells, tile_major, out); });
  // A probe: the last cell's last entry where the layout puts it.
  const long long e = n_cells - 1;
  const long long at = L == RowRuns ? e * kBlock + (kRows - 1) * kCols + kCols - 1
                       : L == ColRuns
                           ? e * kBlock + (kCols - 1) * kRows + kRows - 1
                           : (e / kTile) * kTile * kBlock + (kBlock - 1) * kTile + e % kTile;
  double probe = 0;
  cudaMemcpy(&probe, out + at, sizeof(double), cudaMemcpyDeviceToHost);
  const bool ok = probe == 1e-3 * double(e) + (kRows - 1) + 1e-2 * (kCols - 1);
  std::printf(
      "RESULT block_stores layout=%s G=%d order=%s cells=%lld ms=%.4f GBps=%.0f probe=%s %s\n",
      name, G, tile_major ? "tile-major" : "group-major", n_cells, ms, bytes / ms * 1e-6,
      ok ? "ok" : "WRONG", cudaGetErrorString(cudaGetLastError()));
}

// Whether row-major blocks, rows ld entries apart, hold the right entries at two probes: the
// last cell's last entry and an entry in the middle of a group of a cell in the middle.
bool row_major_probes(long long n_cells, const double* out, int ld = kCols) {
  const long long e = n_cells - 1, m = n_cells / 2, block = (long long)kRows * ld;
  double probe[2] = {0, 0};
  cudaMemcpy(&probe[0], out + e * block + (kRows - 1) * ld + kCols - 1, sizeof(double),
             cudaMemcpyDeviceToHost);
  cudaMemcpy(&probe[1], out + m * block + 17 * ld + 25, sizeof(double), cudaMemcpyDeviceToHost);
  return probe[0] == 1e-3 * double(e) + (kRows - 1) + 1e-2 * (kCols - 1) &&
         probe[1] == 1e-3 * double(m) + 17 + 1e-2 * 25;
}

struct ClusterTime {
  float ms = 0;
  int clusters = 0;  // resident at once
};

// `kernel` (n_cells, out) in clusters of C blocks, a cluster a tile, `shared` bytes a block.
template <class Kernel>
ClusterTime time_clusters(Kernel kernel, int C, size_t shared, long long n_cells, double* out) {
  const long long n_tiles = (n_cells + kTile - 1) / kTile;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared));
  cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(unsigned(n_tiles * C));
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = shared;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = unsigned(C);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  ClusterTime t;
  cudaOccupancyMaxActiveClusters(&t.clusters, kernel, &cfg);
  cudaMemset(out, 0, size_t(n_cells) * kBlock * sizeof(double));
  t.ms = median_ms(
      21, [] {}, [&] { cudaLaunchKernelEx(&cfg, kernel, n_cells, out); });
  return t;
}

template <int G, bool Push>
void measure_cluster(long long n_cells, double* out, double bytes, int extra) {
  constexpr int C = (kCols + G - 1) / G;
  constexpr long long kSlice = ((kTile * kBlock + C - 1) / C + 1) / 2 * 2;
  const size_t stage =
      Push ? size_t(kSlice) * sizeof(double) : size_t(kTile) * ((G * kRows) | 1) * sizeof(double);
  const size_t shared = stage + size_t(extra);
  const ClusterTime t = time_clusters(cluster_rows<G, Push>, C, shared, n_cells, out);
  const bool ok = row_major_probes(n_cells, out);
  std::printf(
      "RESULT block_stores layout=cluster-%s G=%d C=%d extra=%d shared=%zu clusters=%d "
      "cells=%lld ms=%.4f GBps=%.0f probe=%s %s\n",
      Push ? "push" : "pull", G, C, extra, shared, t.clusters, n_cells, t.ms, bytes / t.ms * 1e-6,
      ok ? "ok" : "WRONG", cudaGetErrorString(cudaGetLastError()));
}

template <int G, int Mode = 0, int F = 4>
void measure_cluster_rows(long long n_cells, double* out, double bytes, int extra) {
  constexpr int C = (kCols + G - 1) / G;
  const size_t shared = size_t(kTile) * (G * kRows + 2) * sizeof(double) + size_t(extra);
  const ClusterTime t = time_clusters(cluster_row_runs<G, Mode, F>, C, shared, n_cells, out);
  const bool ok = row_major_probes(n_cells, out);
  std::printf(
      "RESULT block_stores layout=cluster-rows%s G=%d C=%d F=%d extra=%d shared=%zu "
      "clusters=%d cells=%lld ms=%.4f GBps=%.0f probe=%s %s\n",
      Mode == 1   ? "-pulls-only"
      : Mode == 2 ? "-stores-only"
                  : "",
      G, C, F, extra, shared, t.clusters, n_cells, t.ms, bytes / t.ms * 1e-6,
      Mode ? "n/a"
      : ok ? "ok"
           : "WRONG",
      cudaGetErrorString(cudaGetLastError()));
}

// Row runs of groups of G columns starting on multiples of G, rows LD entries apart (LD = 56:
// rows padded to whole 32-byte sectors, so that G = 4 makes every run one whole sector), a
// tile's groups side by side, through a stage of R rows x G columns a cell (R < 54: what a
// block of 16 columns, 128-byte runs, needs when its whole run of 54 rows would not fit beside
// its staged tape values), blocks of T threads.
template <int G, int LD, int R, int T>
__global__ void __launch_bounds__(T) row_runs(long long n_cells, double* __restrict__ out) {
  extern __shared__ double stage[];
  constexpr int n_groups = (kCols + G - 1) / G;
  constexpr int kStride = (G * R) | 1;
  const long long tile = blockIdx.x / n_groups;
  const int g = int(blockIdx.x % n_groups);
  const int gcols = kCols - g * G < G ? kCols - g * G : G;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const long long e = tile * kTile + lane;
  const int cells = int(n_cells - tile * kTile < kTile ? n_cells - tile * kTile : kTile);
  for (int o0 = 0; o0 < kRows; o0 += R) {
    const int rows = kRows - o0 < R ? kRows - o0 : R;
    for (int k = warp; k < gcols * rows; k += T / 32) {
      const int o = k / gcols, c = k % gcols;
      stage[lane * kStride + o * gcols + c] = value(e, o0 + o, g * G + c);
    }
    __syncthreads();
    const int per_cell = gcols * rows;
    for (int i = threadIdx.x; i < cells * per_cell; i += T) {
      const int cell = i / per_cell, k = i % per_cell, o = k / gcols, c = k % gcols;
      out[(tile * kTile + cell) * (long long)(kRows * LD) + (o0 + o) * LD + g * G + c] =
          stage[cell * kStride + k];
    }
    __syncthreads();
  }
}

template <int G, int LD, int R, int T>
void measure_row_runs(const char* name, long long n_cells, double* out, double bytes, int extra) {
  constexpr int n_groups = (kCols + G - 1) / G;
  const size_t shared = size_t(kTile) * ((G * R) | 1) * sizeof(double) + size_t(extra);
  const long long n_tiles = (n_cells + kTile - 1) / kTile;
  cudaFuncSetAttribute(row_runs<G, LD, R, T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       int(shared));
  cudaMemset(out, 0, size_t(n_tiles) * kTile * kRows * LD * sizeof(double));
  const unsigned grid = unsigned(n_tiles * n_groups);
  const float ms = median_ms(
      21, [] {}, [&] { row_runs<G, LD, R, T><<<grid, T, shared>>>(n_cells, out); });
  const bool ok = row_major_probes(n_cells, out, LD);
  std::printf(
      "RESULT block_stores layout=%s G=%d LD=%d R=%d threads=%d extra=%d shared=%zu cells=%lld "
      "ms=%.4f GBps=%.0f probe=%s %s\n",
      name, G, LD, R, T, extra, shared, n_cells, ms, bytes / ms * 1e-6, ok ? "ok" : "WRONG",
      cudaGetErrorString(cudaGetLastError()));
}

int main(int argc, char** argv) {
  const long long n_cells = argc > 1 ? std::atoll(argv[1]) : 100000;
  const long long n_tiles = (n_cells + kTile - 1) / kTile;
  const size_t n = size_t(n_tiles) * kTile * kBlock;
  double *a, *b;
  const size_t padded = size_t(n_tiles) * kTile * kRows * 56;  // row runs' LD = 56
  if (cudaMalloc(&a, padded * sizeof(double)) != cudaSuccess ||
      cudaMalloc(&b, n * sizeof(double)) != cudaSuccess) {
    std::fprintf(stderr, "block_stores: cannot allocate 2 x %zu bytes\n", n * sizeof(double));
    return 1;
  }
  cudaMemset(a, 0, padded * sizeof(double));
  cudaMemset(b, 0, n * sizeof(double));
  const double bytes = double(n_cells) * kBlock * sizeof(double);
  const float copy_ms = median_ms(
      21, [] {},
      [&] { copy<<<132 * 16, 256>>>((long long)(n / 2), (const double2*)a, (double2*)b); });
  std::printf("RESULT block_stores layout=copy cells=%lld ms=%.4f GBps=%.0f (read and write)\n",
              n_cells, copy_ms, 2 * bytes / copy_ms * 1e-6);
  // LAYOUTS: the families to run, separated by spaces (default all of them).
  const char* chosen = std::getenv("LAYOUTS");
  const std::string layouts = chosen ? std::string(" ") + chosen + " " : "";
  const auto run = [&](const char* family) {
    return layouts.empty() || layouts.find(std::string(" ") + family + " ") != std::string::npos;
  };
  if (run("aligned")) {
    measure_row_runs<4, 56, kRows, kThreads>("aligned-rows", n_cells, a, bytes, 0);
    measure_row_runs<8, 56, kRows, kThreads>("aligned-rows", n_cells, a, bytes, 0);
    measure_row_runs<4, 54, kRows, kThreads>("aligned-rows", n_cells, a, bytes, 0);
    measure_row_runs<8, 54, kRows, kThreads>("aligned-rows", n_cells, a, bytes, 0);
    measure_row_runs<16, 54, kRows, kThreads>("aligned-rows", n_cells, a, bytes, 0);
  }
  if (run("chunked")) {
    measure_row_runs<16, 54, 54, 256>("chunked-rows", n_cells, a, bytes, 0);
    measure_row_runs<16, 54, 27, 256>("chunked-rows", n_cells, a, bytes, 0);
    measure_row_runs<16, 54, 27, 512>("chunked-rows", n_cells, a, bytes, 0);
    measure_row_runs<16, 54, 27, 512>("chunked-rows", n_cells, a, bytes, 100 * 1024);
    measure_row_runs<16, 54, 18, 512>("chunked-rows", n_cells, a, bytes, 100 * 1024);
    measure_row_runs<16, 54, 9, 512>("chunked-rows", n_cells, a, bytes, 100 * 1024);
    measure_row_runs<27, 54, 9, 512>("chunked-rows", n_cells, a, bytes, 100 * 1024);
    measure_row_runs<27, 54, 6, 512>("chunked-rows", n_cells, a, bytes, 100 * 1024);
    measure_row_runs<54, 54, 6, 512>("chunked-rows", n_cells, a, bytes, 100 * 1024);
    measure_row_runs<54, 54, 3, 512>("chunked-rows", n_cells, a, bytes, 100 * 1024);
  }
  if (run("cluster-rows")) {
    for (int extra : {0, 200 * kTile * 8}) {
      measure_cluster_rows<4>(n_cells, a, bytes, extra);
      measure_cluster_rows<6>(n_cells, a, bytes, extra);
    }
    measure_cluster_rows<4, 1, 4>(n_cells, a, bytes, 0);
    measure_cluster_rows<4, 2, 4>(n_cells, a, bytes, 0);
    measure_cluster_rows<4, 0, 8>(n_cells, a, bytes, 0);
    measure_cluster_rows<4, 1, 8>(n_cells, a, bytes, 0);
    measure_cluster_rows<4, 0, 16>(n_cells, a, bytes, 0);
    measure_cluster_rows<4, 1, 16>(n_cells, a, bytes, 0);
    measure_cluster_rows<4, 2, 16>(n_cells, a, bytes, 0);
    measure_cluster_rows<6, 0, 16>(n_cells, a, bytes, 0);
    measure_cluster_rows<6, 1, 16>(n_cells, a, bytes, 0);
  }
  if (run("cluster")) {
    for (int extra : {0, 200 * kTile * 8}) {
      measure_cluster<4, false>(n_cells, a, bytes, extra);
      measure_cluster<4, true>(n_cells, a, bytes, extra);
      measure_cluster<6, false>(n_cells, a, bytes, extra);
      measure_cluster<6, true>(n_cells, a, bytes, extra);
      measure_cluster<9, false>(n_cells, a, bytes, extra);
      measure_cluster<9, true>(n_cells, a, bytes, extra);
    }
  }
  if (run("tiles")) {
    for (int tile_major = 1; tile_major >= 0; --tile_major) {
      measure<2, Tiled>("tiled", n_cells, tile_major, a, bytes);
      measure<2, ColRuns>("colruns", n_cells, tile_major, a, bytes);
      measure<2, RowRuns>("rowruns", n_cells, tile_major, a, bytes);
      measure<3, RowRuns>("rowruns", n_cells, tile_major, a, bytes);
      measure<6, RowRuns>("rowruns", n_cells, tile_major, a, bytes);
      measure<6, ColRuns>("colruns", n_cells, tile_major, a, bytes);
    }
  }
  return 0;
}
