#include "examples/mesh_energy/mesh_checks.h"

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace dualjit::mesh_energy {

void check_connectivity(const TriMesh& m, const std::filesystem::path& source) {
  if (m.x.size() % 3 != 0) {
    throw MeshReadError(source, 0,
                        std::to_string(m.x.size()) + " coordinates, not a multiple of 3");
  }
  if (m.faces.size() % 3 != 0) {
    throw MeshReadError(source, 0,
                        std::to_string(m.faces.size()) + " face indices, not a multiple of 3");
  }
  for (size_t i = 0; i < m.x.size(); ++i) {
    if (!std::isfinite(m.x[i]))
      throw MeshReadError(source, 0, "vertex " + std::to_string(i / 3) + " is not finite");
  }
  const int64_t nv = m.n_vertices();
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    const int32_t* v = &m.faces[f * 3];
    for (int c = 0; c < 3; ++c) {
      if (v[c] < 0 || v[c] >= nv) {
        throw MeshReadError(source, 0,
                            "face " + std::to_string(f) + ": vertex " + std::to_string(v[c]) +
                                " out of range (" + std::to_string(nv) + " vertices)");
      }
    }
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2])
      throw MeshReadError(source, 0, "face " + std::to_string(f) + " repeats a vertex");
  }
}

void check_surface(const TriMesh& m, const std::filesystem::path& source) {
  check_connectivity(m, source);
  if (m.n_faces() == 0) throw MeshReadError(source, 0, "no faces");
  check_manifold(m, source);
  // Union-find over the faces' vertices: one piece, no vertex left out.
  std::vector<int32_t> parent(m.n_vertices());
  std::iota(parent.begin(), parent.end(), 0);
  const auto root = [&](int32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  std::vector<char> used(m.n_vertices(), 0);
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    const int32_t* v = &m.faces[f * 3];
    for (int c = 0; c < 3; ++c) used[v[c]] = 1;
    parent[root(v[1])] = root(v[0]);
    parent[root(v[2])] = root(v[0]);
  }
  for (int64_t v = 0; v < m.n_vertices(); ++v) {
    if (!used[v]) throw MeshReadError(source, 0, "vertex " + std::to_string(v) + " is in no face");
  }
  const int32_t first = root(m.faces[0]);
  for (int64_t f = 1; f < m.n_faces(); ++f) {
    if (root(m.faces[f * 3]) != first) {
      throw MeshReadError(source, 0,
                          "face " + std::to_string(f) + " is not connected to face 0 (the mesh " +
                              "has several pieces)");
    }
  }
}

}  // namespace dualjit::mesh_energy
