#include "examples/mesh_energy/smoothing.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "examples/mesh_energy/mesh_checks.h"
#include "examples/mesh_energy/smoothing_energy.h"

namespace dualjit::mesh_energy {

Smoothing smoothing_problem(const TriMesh& m, const std::filesystem::path& source,
                            bool pin_boundary) {
  check_connectivity(m, source);
  if (m.n_faces() == 0) throw MeshReadError(source, 0, "smoothing: the mesh has no faces");
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
  std::vector<int32_t> boundary;
  for (int32_t v = 0; v < nv; ++v)
    if (on_boundary[v]) boundary.push_back(v);
  if (pin_boundary && int64_t(boundary.size()) == nv)
    throw MeshReadError(source, 0, "smoothing: every vertex is on the pinned boundary");

  Smoothing s{assembly::Problem(nv, 3), std::move(boundary), {}, m.x};
  if (pin_boundary && !s.boundary.empty()) {
    s.pinned = solvers::PinnedDofs(nv, 3);
    for (int32_t v : s.boundary) s.pinned.pin_node(v);
  }
  assembly::Term edges;
  edges.name = "edges";
  edges.kernel = std::make_shared<Kernel>(edge_length_squared_kernel());
  edges.elements = {"edges", 2, mesh_edges(m)};
  edges.energy = true;
  s.problem.add_term(std::move(edges));
  return s;
}

}  // namespace dualjit::mesh_energy
