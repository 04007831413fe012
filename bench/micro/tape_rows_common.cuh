// What bench/micro/tape_rows.cu (the rows from the tapes by tables) and the straight-line
// variant bench/micro/tape_rows_gen.py writes share: dualjit's tape layout as
// bench/kinetics_tape_layout writes it, the tiled arrays, the direct sums every variant is
// checked against, and the random cells.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "median_ms.cuh"

namespace tape_rows {

constexpr int kTile = 32;  // cells a tile of the tape and a block of B
constexpr double kR = 8314.46261815324;
constexpr double kPressure = 10 * 101325.0;

struct Layout {
  int ns = 0, nr = 0, ni = 0;  // species, reactions, inputs (T, Y_1..Y_ns)
  long long slots = 0;
  std::vector<double> weight;
  std::vector<long long> offset;
  std::vector<std::vector<int>> columns;                // per reaction, per component
  std::vector<std::vector<std::pair<int, double>>> nu;  // per reaction: (species, nu)
};

inline Layout read_layout(const char* path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "tape_rows: cannot read %s\n", path);
    std::exit(2);
  }
  Layout l;
  std::string w;
  in >> w >> l.ns >> w >> l.nr >> w >> l.ni >> w >> l.slots >> w;
  l.weight.resize(l.ns);
  for (double& x : l.weight) in >> x;
  l.offset.resize(l.nr);
  l.columns.resize(l.nr);
  l.nu.resize(l.nr);
  for (int r = 0; r < l.nr; ++r) {
    int index, nc, nn;
    in >> index >> l.offset[r] >> nc;
    l.columns[r].resize(nc);
    for (int& c : l.columns[r]) in >> c;
    in >> nn;
    l.nu[r].resize(nn);
    for (auto& [k, v] : l.nu[r]) in >> k >> v;
    if (!in || index != r) {
      std::fprintf(stderr, "tape_rows: %s: reaction line %d unreadable\n", path, r);
      std::exit(2);
    }
  }
  return l;
}

inline double heat_coefficient(int r) {
  return -1.0e3 * (1 + r % 7);
}  // stands in for -RT dh_r/RT

// Slot s of cell e in a tiled array of `size` slots a cell.
__host__ __device__ inline long long tiled(long long e, long long s, long long size) {
  return (e / kTile * size + s) * kTile + e % kTile;
}

// The auxiliary array A writes: per cell w_k, D[k][s] (ns + 1 each), then ds/dx_c (ni).
__host__ __device__ inline int aux_size(int ns, int ni) {
  return 2 * (ns + 1) + ni;
}

// Direct sums for cell e (the reference): J cell-major, (ns + 1) x ni.
inline std::vector<double> reference(const Layout& l, const std::vector<double>& tape,
                                     const std::vector<double>& state, long long e) {
  const int ns1 = l.ns + 1, ni = l.ni;
  std::vector<double> D(ns1 * (ni + 1), 0.0), J(ns1 * ni);
  for (int r = 0; r < l.nr; ++r)
    for (size_t i = 0; i < l.columns[r].size(); ++i) {
      const double q = tape[tiled(e, l.offset[r] + 1 + static_cast<long long>(i), l.slots)];
      const int c = l.columns[r][i];
      for (const auto& [k, v] : l.nu[r]) D[k * (ni + 1) + c] += v * q;
      D[l.ns * (ni + 1) + c] += heat_coefficient(r) * q;
    }
  const double* x = &state[e * ni];
  double S = 0;
  for (int m = 1; m < ni; ++m) S += x[m] / l.weight[m - 1];
  const double T = x[0], s = kPressure / (kR * T * S);
  for (int k = 0; k < ns1; ++k)
    for (int c = 0; c < ni; ++c) {
      const double g = c == 0 ? -s / T : -s / l.weight[c - 1] / S;
      J[k * ni + c] = D[k * (ni + 1) + c] + D[k * (ni + 1) + ni] * g;
    }
  return J;
}

template <class T>
T* upload(const std::vector<T>& v) {
  T* p = nullptr;
  cudaMalloc(&p, std::max<size_t>(v.size(), 1) * sizeof(T));
  cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
  return p;
}

__global__ void copy_kernel(const double* __restrict__ a, double* __restrict__ b, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    b[i] = a[i];
}

// Random cells: the tape's slots uniform in (-1e3, 1e3); T in (300, 3000) K and positive Y
// summing to 1.
struct Cells {
  long long n = 0, tiles = 0;
  std::vector<double> tape, state, inv_weight;
};

inline Cells random_cells(const Layout& l, long long n) {
  Cells c;
  c.n = n;
  c.tiles = (n + kTile - 1) / kTile;
  const int ni = l.ni;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0), y(0.01, 1.0), temp(300.0, 3000.0);
  c.tape.resize(c.tiles * kTile * l.slots);
  c.state.resize(n * ni);
  for (double& v : c.tape) v = u(rng) * 1e3;
  for (long long e = 0; e < n; ++e) {
    double sum = 0;
    c.state[e * ni] = temp(rng);
    for (int m = 1; m < ni; ++m) sum += c.state[e * ni + m] = y(rng);
    for (int m = 1; m < ni; ++m) c.state[e * ni + m] /= sum;
  }
  c.inv_weight.resize(l.ns);
  for (int k = 0; k < l.ns; ++k) c.inv_weight[k] = 1.0 / l.weight[k];
  return c;
}

// The largest difference of J (cell-major, or component-major) from the direct sums over every
// `stride`-th cell, relative to each cell's largest entry.
inline double worst_difference(const Layout& l, const Cells& c, const std::vector<double>& J,
                               bool component_major, long long stride) {
  const int ns1 = l.ns + 1, ni = l.ni;
  double worst = 0;
  for (long long e = 0; e < c.n; e += stride) {
    const std::vector<double> r = reference(l, c.tape, c.state, e);
    double scale = 0, diff = 0;
    for (int k = 0; k < ns1; ++k)
      for (int j = 0; j < ni; ++j) {
        const double got =
            component_major ? J[(k * ni + j) * c.n + e] : J[e * ns1 * ni + k * ni + j];
        scale = std::max(scale, std::abs(r[k * ni + j]));
        diff = std::max(diff, std::abs(r[k * ni + j] - got));
      }
    worst = std::max(worst, diff / scale);
  }
  return worst;
}

// Device bandwidth: a copy of `doubles` (median of `reps`), in bytes a second both ways.
inline double copy_bandwidth(const double* from, long long doubles, int reps) {
  double* to = nullptr;
  cudaMalloc(&to, doubles * sizeof(double));
  const float ms = median_ms(
      reps, [] {}, [&] { copy_kernel<<<132 * 16, 256>>>(from, to, doubles); });
  cudaFree(to);
  return 2.0 * doubles * sizeof(double) / (ms * 1e-3);
}

}  // namespace tape_rows
