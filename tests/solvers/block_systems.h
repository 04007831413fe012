// Random nonsymmetric block systems on small graphs, the shape of an implicit Euler solver's
// Jacobian, for the tests of the Krylov solvers and their preconditioners.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "backends/mesh/block_csr.h"
#include "backends/mesh/block_pattern.h"
#include "backends/mesh/element_set.h"

namespace dualjit::test {

constexpr int kB = 5;  // conserved variables of the 3-D Euler equations

inline std::vector<double> random_vector(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

inline mesh::BlockPattern edge_pattern(int64_t n_nodes, const std::vector<int32_t>& conn) {
  mesh::ElementSet edges{"edges", 2, conn};
  return mesh::BlockPattern::build(n_nodes, {&edges});
}

// Nodes 0 - 1 - ... - n-1: block tridiagonal.
inline mesh::BlockPattern chain_pattern(int n) {
  std::vector<int32_t> conn;
  for (int i = 0; i + 1 < n; ++i) conn.insert(conn.end(), {i, i + 1});
  return edge_pattern(n, conn);
}

// An nx x ny grid with its 4 neighbours: ILU(0) drops fill here.
inline mesh::BlockPattern grid_pattern(int nx, int ny) {
  std::vector<int32_t> conn;
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      const int node = j * nx + i;
      if (i + 1 < nx) conn.insert(conn.end(), {node, node + 1});
      if (j + 1 < ny) conn.insert(conn.end(), {node, node + nx});
    }
  }
  return edge_pattern(static_cast<int64_t>(nx) * ny, conn);
}

// Random nonsymmetric blocks: off-diagonal entries in (-1, 1), each diagonal block random plus
// +-(dominance times the sum of its row's off-diagonal block infinity norms, plus 1.5) on its
// diagonal: dominance below 1 stops short of diagonal dominance, so that the Krylov method has
// work to do, while every pivot stays well away from singular. Then each node's rows scaled by
// a factor log-uniform in [1/spread, spread] (what block Jacobi undoes and plain GMRES suffers
// from, as the very different cell sizes of a CFD mesh do).
inline mesh::BlockCsr<double> random_matrix(const mesh::BlockPattern& p, double dominance,
                                            double spread, uint64_t seed, int block = kB) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  auto a = mesh::BlockCsr<double>::zeros(p, block, block);
  for (double& v : a.values) v = u(rng);
  for (int64_t r = 0; r < p.n_nodes(); ++r) {
    double off = 0;
    for (int64_t k = p.row_ptr()[r]; k < p.row_ptr()[r + 1]; ++k) {
      if (k == p.diag_index(r)) continue;
      double row_max = 0;
      for (int i = 0; i < block; ++i) {
        double s = 0;
        for (int j = 0; j < block; ++j) s += std::abs(a.block(k)[i * block + j]);
        row_max = std::max(row_max, s);
      }
      off += row_max;
    }
    double* d = a.block(p.diag_index(r));
    for (int i = 0; i < block; ++i) d[i * block + i] += (i % 2 ? 1 : -1) * (dominance * off + 1.5);
    const double scale = std::exp(std::log(spread) * u(rng));
    for (int64_t k = p.row_ptr()[r]; k < p.row_ptr()[r + 1]; ++k) {
      for (int e = 0; e < block * block; ++e) a.block(k)[e] *= scale;
    }
  }
  return a;
}

}  // namespace dualjit::test
