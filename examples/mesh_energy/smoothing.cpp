#include "examples/mesh_energy/smoothing.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>

#include "examples/mesh_energy/mesh_checks.h"
#include "examples/mesh_energy/smoothing_energy.h"

namespace dualjit::mesh_energy {

Kernel edge_to_pinned_kernel() {
  return Kernel("edge_to_pinned", [](KernelBuilder& kb) {
    const Vec<3> xa = kb.input_vec<3>("xa");
    const Vec<3> xb = kb.param_vec<3>("xb");
    kb.output("energy", squared_norm(xa - xb));
  });
}

std::vector<double> Smoothing::positions(std::span<const double> state) const {
  problem.check_values(state, "smoothing state");
  std::vector<double> out = pinned_x;
  for (size_t i = 0; i < free_vertices.size(); ++i)
    for (int c = 0; c < 3; ++c) out[int64_t(free_vertices[i]) * 3 + c] = state[i * 3 + c];
  return out;
}

Smoothing smoothing_problem(const TriMesh& m, const std::filesystem::path& source,
                            bool pin_boundary) {
  check_connectivity(m, source);
  const int64_t nv = m.n_vertices();
  // Boundary: the ends of edges that only one face has (counted without direction, so that
  // inconsistently oriented meshes are read the same way).
  std::unordered_map<uint64_t, int> uses;
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    for (int c = 0; c < 3; ++c) {
      const int32_t a = m.faces[f * 3 + c], b = m.faces[f * 3 + (c + 1) % 3];
      ++uses[(uint64_t(uint32_t(std::min(a, b))) << 32) | uint32_t(std::max(a, b))];
    }
  }
  std::vector<char> on_boundary(nv, 0);
  for (const auto& [key, n] : uses) {
    if (n != 1) continue;
    on_boundary[key >> 32] = 1;
    on_boundary[key & 0xffffffffu] = 1;
  }
  std::vector<int32_t> boundary, free_vertices;
  std::vector<int32_t> node(nv, -1);  // vertex -> node, -1 when pinned
  for (int32_t v = 0; v < nv; ++v) {
    if (on_boundary[v]) boundary.push_back(v);
    if (pin_boundary && on_boundary[v]) continue;
    node[v] = static_cast<int32_t>(free_vertices.size());
    free_vertices.push_back(v);
  }
  if (free_vertices.empty())
    throw MeshReadError(source, 0, "smoothing: every vertex is on the pinned boundary");

  Smoothing s{assembly::Problem(static_cast<int64_t>(free_vertices.size()), 3),
              std::move(boundary),
              std::move(free_vertices),
              {},
              m.x};
  s.x.reserve(s.free_vertices.size() * 3);
  for (int32_t v : s.free_vertices)
    s.x.insert(s.x.end(), &m.x[int64_t(v) * 3], &m.x[int64_t(v) * 3] + 3);

  assembly::Term edges;
  edges.name = "edges";
  edges.kernel = std::make_shared<Kernel>(edge_length_squared_kernel());
  edges.elements = {"edges", 2, {}};
  edges.energy = true;
  assembly::Term pinned;
  pinned.name = "pinned edges";
  pinned.kernel = std::make_shared<Kernel>(edge_to_pinned_kernel());
  pinned.elements = {"edges to pinned vertices", 1, {}};
  pinned.energy = true;
  const std::vector<int32_t> all = mesh_edges(m);
  for (size_t e = 0; e < all.size(); e += 2) {
    const int32_t a = node[all[e]], b = node[all[e + 1]];
    if (a >= 0 && b >= 0) {
      edges.elements.conn.insert(edges.elements.conn.end(), {a, b});
    } else if (a >= 0 || b >= 0) {
      const int32_t pin = a >= 0 ? all[e + 1] : all[e];
      pinned.elements.conn.push_back(a >= 0 ? a : b);
      pinned.params.insert(pinned.params.end(), &m.x[int64_t(pin) * 3], &m.x[int64_t(pin) * 3] + 3);
    }
  }
  if (!edges.elements.conn.empty()) s.problem.add_term(std::move(edges));
  if (!pinned.elements.conn.empty()) s.problem.add_term(std::move(pinned));
  return s;
}

}  // namespace dualjit::mesh_energy
