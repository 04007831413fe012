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
// Build and run (no dualjit needed):
//   nvcc -O3 -arch=sm_90 -o block_stores block_stores.cu && ./block_stores [CELLS]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "median_ms.cuh"

constexpr int kRows = 54, kCols = 54, kTile = 32, kThreads = 256;
constexpr long long kBlock = kRows * kCols;

enum Layout { Tiled, ColRuns, RowRuns };

__device__ double value(long long e, int o, int c) { return 1e-3 * double(e) + o + 1e-2 * c; }

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
    const long long at = L == ColRuns ? row0 + (long long)g * kEntries + k
                                      : row0 + (k / G) * kCols + g * G + k % G;
    out[at] = stage[cell * kStride + k];
  }
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
      21, [] {},
      [&] { store_blocks<G, L><<<grid, kThreads, shared>>>(n_cells, tile_major, out); });
  // A probe: the last cell's last entry where the layout puts it.
  const long long e = n_cells - 1;
  const long long at = L == RowRuns ? e * kBlock + (kRows - 1) * kCols + kCols - 1
                       : L == ColRuns
                           ? e * kBlock + (kCols - 1) * kRows + kRows - 1
                           : (e / kTile) * kTile * kBlock + (kBlock - 1) * kTile + e % kTile;
  double probe = 0;
  cudaMemcpy(&probe, out + at, sizeof(double), cudaMemcpyDeviceToHost);
  const bool ok = probe == 1e-3 * double(e) + (kRows - 1) + 1e-2 * (kCols - 1);
  std::printf("RESULT block_stores layout=%s G=%d order=%s cells=%lld ms=%.4f GBps=%.0f probe=%s %s\n",
              name, G, tile_major ? "tile-major" : "group-major", n_cells, ms, bytes / ms * 1e-6,
              ok ? "ok" : "WRONG", cudaGetErrorString(cudaGetLastError()));
}

int main(int argc, char** argv) {
  const long long n_cells = argc > 1 ? std::atoll(argv[1]) : 100000;
  const long long n_tiles = (n_cells + kTile - 1) / kTile;
  const size_t n = size_t(n_tiles) * kTile * kBlock;
  double *a, *b;
  if (cudaMalloc(&a, n * sizeof(double)) != cudaSuccess ||
      cudaMalloc(&b, n * sizeof(double)) != cudaSuccess) {
    std::fprintf(stderr, "block_stores: cannot allocate 2 x %zu bytes\n", n * sizeof(double));
    return 1;
  }
  cudaMemset(a, 0, n * sizeof(double));
  cudaMemset(b, 0, n * sizeof(double));
  const double bytes = double(n_cells) * kBlock * sizeof(double);
  const float copy_ms = median_ms(21, [] {}, [&] {
    copy<<<132 * 16, 256>>>((long long)(n / 2), (const double2*)a, (double2*)b);
  });
  std::printf("RESULT block_stores layout=copy cells=%lld ms=%.4f GBps=%.0f (read and write)\n",
              n_cells, copy_ms, 2 * bytes / copy_ms * 1e-6);
  for (int tile_major = 1; tile_major >= 0; --tile_major) {
    measure<2, Tiled>("tiled", n_cells, tile_major, a, bytes);
    measure<2, ColRuns>("colruns", n_cells, tile_major, a, bytes);
    measure<2, RowRuns>("rowruns", n_cells, tile_major, a, bytes);
    measure<3, RowRuns>("rowruns", n_cells, tile_major, a, bytes);
    measure<6, RowRuns>("rowruns", n_cells, tile_major, a, bytes);
    measure<6, ColRuns>("colruns", n_cells, tile_major, a, bytes);
  }
  return 0;
}
