// Random meshes and brute-force references shared by the mesh tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "backends/mesh/element_set.h"

namespace dualjit::mesh::test {

// n_elements random elements of k distinct vertices over n_nodes (or possibly repeated ones).
inline ElementSet random_set(std::string name, int k, int64_t n_elements, int32_t n_nodes,
                             std::mt19937& rng, bool distinct = true) {
  ElementSet s{std::move(name), k, {}};
  std::uniform_int_distribution<int32_t> node(0, n_nodes - 1);
  for (int64_t e = 0; e < n_elements; ++e) {
    std::vector<int32_t> v;
    while (static_cast<int>(v.size()) < k) {
      const int32_t x = node(rng);
      if (!distinct || std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
    }
    s.conn.insert(s.conn.end(), v.begin(), v.end());
  }
  return s;
}

// The brute-force block pattern: every vertex pair of every element plus all diagonals; with
// upper, pairs folded to (min, max).
inline std::set<std::pair<int64_t, int64_t>> brute_pattern(
    int64_t n_nodes, const std::vector<const ElementSet*>& sets, bool upper) {
  std::set<std::pair<int64_t, int64_t>> p;
  for (int64_t n = 0; n < n_nodes; ++n) p.insert({n, n});
  for (const ElementSet* s : sets) {
    for (int64_t e = 0; e < s->size(); ++e) {
      for (int a = 0; a < s->k; ++a) {
        for (int b = 0; b < s->k; ++b) {
          int64_t r = s->vertex(e, a), c = s->vertex(e, b);
          if (upper && c < r) std::swap(r, c);
          p.insert({r, c});
        }
      }
    }
  }
  return p;
}

// n_elements dense (k*br) x (k*bc) row-major element matrices; symmetric ones when asked.
inline std::vector<double> random_element_matrices(int k, int br, int bc, int64_t n_elements,
                                                   std::mt19937& rng, bool symmetric = false) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int rows = k * br, cols = k * bc;
  std::vector<double> m(n_elements * rows * cols);
  for (int64_t e = 0; e < n_elements; ++e) {
    double* x = m.data() + e * rows * cols;
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) {
        x[i * cols + j] = (symmetric && j < i) ? x[j * cols + i] : u(rng);
      }
    }
  }
  return m;
}

// Dense reference assembly, contributions added in the same order as the library's.
inline void dense_assemble(Eigen::MatrixXd& d, const ElementSet& s, int br, int bc,
                           const std::vector<double>& element_matrices) {
  const int k = s.k, cols = k * bc;
  const int64_t per = int64_t(k) * br * cols;
  for (int64_t e = 0; e < s.size(); ++e) {
    const double* x = element_matrices.data() + e * per;
    for (int a = 0; a < k; ++a) {
      for (int b = 0; b < k; ++b) {
        for (int i = 0; i < br; ++i) {
          for (int j = 0; j < bc; ++j) {
            d(int64_t(s.vertex(e, a)) * br + i, int64_t(s.vertex(e, b)) * bc + j) +=
                x[(a * br + i) * cols + b * bc + j];
          }
        }
      }
    }
  }
}

// A structured nx x ny grid split into two triangles per quad; node (i, j) is j * nx + i.
inline ElementSet grid_triangles(int nx, int ny) {
  ElementSet s{"grid", 3, {}};
  for (int j = 0; j + 1 < ny; ++j) {
    for (int i = 0; i + 1 < nx; ++i) {
      const int32_t v00 = j * nx + i, v10 = v00 + 1, v01 = v00 + nx, v11 = v01 + 1;
      s.conn.insert(s.conn.end(), {v00, v10, v11, v00, v11, v01});
    }
  }
  return s;
}

// Message of the MeshError thrown by f, or "" when none is thrown.
template <class F>
std::string mesh_error_of(F&& f) {
  try {
    f();
  } catch (const MeshError& e) {
    return e.what();
  }
  return "";
}

}  // namespace dualjit::mesh::test
