// Small problems of every binding the element assemblies support, for the tests of each
// strategy: energy terms (springs on edges, springs on triangles bound to two of their vertices,
// a per-vertex anchor) and vector terms (Roe fluxes on edges and on triangles with scatter
// signs, a per-cell source), with random states and a scaled error measure.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "backends/assembly/problem.h"
#include "support/test_kernels.h"

namespace dualjit::test {

inline mesh::ElementSet random_simplices(const std::string& name, int k, int64_t n_nodes, int64_t n,
                                         std::mt19937_64& rng) {
  mesh::ElementSet s{name, k, {}};
  std::uniform_int_distribution<int32_t> node(0, static_cast<int32_t>(n_nodes - 1));
  for (int64_t e = 0; e < n; ++e) {
    std::vector<int32_t> v;
    while (static_cast<int>(v.size()) < k) {
      const int32_t c = node(rng);
      if (std::find(v.begin(), v.end(), c) == v.end()) v.push_back(c);
    }
    s.conn.insert(s.conn.end(), v.begin(), v.end());
  }
  return s;
}

// Edges with distinct endpoints over n nodes, named "edges".
inline mesh::ElementSet random_edges(int64_t n_nodes, int64_t n_edges, std::mt19937_64& rng) {
  return random_simplices("edges", 2, n_nodes, n_edges, rng);
}

inline std::vector<double> uniform(size_t n, double lo, double hi, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

// Three energy terms over 3-vectors: springs on edges, springs on triangles bound to vertices
// (2, 0) (vertex 1 has no input: its blocks stay zero but exist), and a per-vertex anchor.
inline assembly::Problem energy_problem(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  assembly::Problem p(n, 3);
  assembly::Term springs;
  springs.name = "springs";
  springs.kernel = std::make_shared<Kernel>(test::spring_kernel());
  springs.elements = random_simplices("edges", 2, n, 3 * n, rng);
  springs.energy = true;
  springs.params = uniform(3 * n, 0.5, 1.5, rng);
  springs.uniforms = {30.0};
  p.add_term(std::move(springs));
  assembly::Term diagonals;
  diagonals.name = "triangle diagonals";
  diagonals.kernel = std::make_shared<Kernel>(test::spring_kernel());
  diagonals.elements = random_simplices("triangles", 3, n, n, rng);
  diagonals.input_vertex = {2, 0};
  diagonals.energy = true;
  diagonals.params = uniform(n, 0.5, 1.5, rng);
  diagonals.uniforms = {12.0};
  p.add_term(std::move(diagonals));
  assembly::Term anchor;
  anchor.name = "anchor";
  anchor.kernel = std::make_shared<Kernel>("anchor", [](KernelBuilder& kb) {
    auto x = kb.input_vec<3>("x");
    auto m = kb.param("mass", 1);
    kb.output("e", m[0] * (9.81 * x[2] + 0.5 * dot(x, x) * x[0] * x[0]));
  });
  anchor.elements = {"vertices", 1, {}};
  for (int32_t i = 0; i < n; i += 2) anchor.elements.conn.push_back(i);
  anchor.params = uniform(anchor.elements.conn.size(), 0.5, 1.5, rng);
  anchor.energy = true;
  p.add_term(std::move(anchor));
  return p;
}

// Two vector terms over 5-vectors: Roe fluxes on edges (+F at v0, -F at v1), and on triangles
// with inputs from vertices (1, 2) scattered to all three (vertex 0 has no input), plus a
// per-vertex relaxation source.
inline assembly::Problem vector_problem(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  assembly::Problem p(n, 5);
  assembly::Term edges;
  edges.name = "edges";
  edges.kernel = std::make_shared<Kernel>(cfd::roe_flux_kernel());
  edges.elements = random_simplices("edges", 2, n, 3 * n, rng);
  edges.output_scatter = {{{0, 1.0}, {1, -1.0}}};
  edges.params = uniform(3 * edges.elements.size(), -1.0, 1.0, rng);
  edges.uniforms = {1.4};
  p.add_term(std::move(edges));
  assembly::Term faces;
  faces.name = "faces";
  faces.kernel = std::make_shared<Kernel>(cfd::roe_flux_kernel());
  faces.elements = random_simplices("triangles", 3, n, n / 2, rng);
  faces.input_vertex = {1, 2};
  faces.output_scatter = {{{1, 1.0}, {2, -1.0}, {0, 0.5}}};
  faces.params = uniform(3 * faces.elements.size(), -1.0, 1.0, rng);
  faces.uniforms = {1.4};
  p.add_term(std::move(faces));
  assembly::Term source;
  source.name = "relaxation";
  source.kernel = std::make_shared<Kernel>("relax", [](KernelBuilder& kb) {
    auto q = kb.input("q", 5);
    auto w = kb.param("w", 1);
    std::vector<Expr> r;
    for (int c = 0; c < 5; ++c) r.push_back(w[0] * q[c] * q[0] + 0.1 * q[c] * q[4]);
    kb.output("r", r);
  });
  source.elements = {"cells", 1, {}};
  for (int32_t i = 1; i < n; i += 3) source.elements.conn.push_back(i);
  source.params = uniform(source.elements.conn.size(), 0.5, 1.5, rng);
  p.add_term(std::move(source));
  return p;
}

inline std::vector<double> roe_state(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto data = test::data_for("roe_flux");
  std::vector<double> q(n * 5);
  for (int64_t i = 0; i < n * 5; ++i) q[i] = data.input(static_cast<int>(i % 5), rng);
  return q;
}

// Largest |a - b| over the largest |b| (at least 1); infinite on a size mismatch or NaN.
inline double max_rel(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return INFINITY;
  double w = 0, scale = 1;
  for (double x : b) scale = std::max(scale, std::abs(x));
  for (size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i])) return INFINITY;
    w = std::max(w, std::abs(a[i] - b[i]) / scale);
  }
  return w;
}

}  // namespace dualjit::test
