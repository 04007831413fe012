#include "examples/cfd/boundary.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dualjit::cfd {

namespace {

void check_nodes(const char* who, const EdgeMesh& em, const TetMesh& mesh) {
  if (mesh.n_nodes != em.n_nodes)
    throw std::invalid_argument(std::string(who) + ": a mesh of " + std::to_string(mesh.n_nodes) +
                                " nodes for edge data of " + std::to_string(em.n_nodes));
}

// Adds a third of each boundary face's outward area to its nodes, in the far-field or the
// wall areas as kind_of(face index, centroid, area) says.
template <class KindOf>
BoundaryAreas split_boundary(const EdgeMesh& em, const TetMesh& mesh, const KindOf& kind_of) {
  BoundaryAreas out;
  out.farfield.assign(static_cast<size_t>(em.n_nodes) * 3, 0.0);
  out.slip_wall = out.farfield;
  for (int64_t f = 0; f < em.n_bfaces(); ++f) {
    const int32_t* v = &em.bfaces[static_cast<size_t>(f) * 3];
    const double* x[3] = {&mesh.xyz[v[0] * 3], &mesh.xyz[v[1] * 3], &mesh.xyz[v[2] * 3]};
    const double a[3] = {x[1][0] - x[0][0], x[1][1] - x[0][1], x[1][2] - x[0][2]};
    const double b[3] = {x[2][0] - x[0][0], x[2][1] - x[0][1], x[2][2] - x[0][2]};
    // Outward right-hand normal of the face: twice its area vector (build_edge_mesh's).
    const std::array<double, 3> n{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                                  a[0] * b[1] - a[1] * b[0]};
    std::array<double, 3> centroid{};
    for (int d = 0; d < 3; ++d) centroid[d] = (x[0][d] + x[1][d] + x[2][d]) / 3;
    const std::array<double, 3> area{n[0] / 2, n[1] / 2, n[2] / 2};
    std::vector<double>& target =
        kind_of(f, centroid, area) == BoundaryKind::slip_wall ? out.slip_wall : out.farfield;
    for (int k = 0; k < 3; ++k)
      for (int d = 0; d < 3; ++d) target[static_cast<size_t>(v[k]) * 3 + d] += n[d] / 6.0;
  }
  return out;
}

std::array<int32_t, 3> sorted_nodes(std::array<int32_t, 3> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

BoundaryAreas classify_boundary(const EdgeMesh& em, const TetMesh& mesh,
                                const BoundaryClassifier& kind_of) {
  check_nodes("classify_boundary", em, mesh);
  return split_boundary(em, mesh,
                        [&](int64_t, const std::array<double, 3>& centroid,
                            const std::array<double, 3>& area) { return kind_of(centroid, area); });
}

BoundaryAreas tagged_boundary(const EdgeMesh& em, const GmshMesh& gmsh,
                              const std::map<std::string, BoundaryKind>& kinds) {
  check_nodes("tagged_boundary", em, gmsh.mesh);
  std::vector<BoundaryKind> kind_of_group;
  for (const std::string& name : gmsh.groups) {
    const auto it = kinds.find(name);
    if (it == kinds.end()) {
      std::string known;
      for (const auto& entry : kinds) known += (known.empty() ? "\"" : ", \"") + entry.first + "\"";
      throw std::invalid_argument("tagged_boundary: no boundary kind for the group \"" + name +
                                  "\" (kinds are given for " + (known.empty() ? "none" : known) +
                                  ")");
    }
    kind_of_group.push_back(it->second);
  }
  // Each face of em's boundary found among the tagged faces by its sorted nodes.
  std::vector<std::pair<std::array<int32_t, 3>, BoundaryKind>> kind_of_face;
  kind_of_face.reserve(gmsh.boundary.size());
  for (const TaggedFace& f : gmsh.boundary) {
    if (f.group < 0 || f.group >= static_cast<int32_t>(kind_of_group.size()))
      throw std::invalid_argument("tagged_boundary: a face in group " + std::to_string(f.group) +
                                  " of " + std::to_string(kind_of_group.size()));
    kind_of_face.emplace_back(sorted_nodes(f.nodes), kind_of_group[f.group]);
  }
  std::sort(kind_of_face.begin(), kind_of_face.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return split_boundary(
      em, gmsh.mesh, [&](int64_t face, const std::array<double, 3>&, const std::array<double, 3>&) {
        const int32_t* v = &em.bfaces[static_cast<size_t>(face) * 3];
        const std::array<int32_t, 3> key = sorted_nodes({v[0], v[1], v[2]});
        const auto it = std::lower_bound(
            kind_of_face.begin(), kind_of_face.end(), key,
            [](const auto& entry, const std::array<int32_t, 3>& k) { return entry.first < k; });
        if (it == kind_of_face.end() || it->first != key)
          throw std::invalid_argument(
              "tagged_boundary: boundary face " + std::to_string(face) + " (nodes " +
              std::to_string(v[0]) + " " + std::to_string(v[1]) + " " + std::to_string(v[2]) +
              ") is not among the tagged faces: the edge data is not of this mesh");
        return it->second;
      });
}

BoundaryAreas farfield_boundary(const EdgeMesh& em) {
  return {em.bnode_area, std::vector<double>(em.bnode_area.size(), 0.0)};
}

Kernel roe_slip_wall_kernel() {
  return Kernel("roe_slip_wall", [](KernelBuilder& kb) {
    const auto Q = kb.input("Q", 5);
    const auto S = kb.param("S", 3);
    const Expr gamma = kb.uniform("gamma");
    const Expr kinetic = 0.5 * (Q[1] * Q[1] + Q[2] * Q[2] + Q[3] * Q[3]) / Q[0];
    const Expr p = (gamma - 1.0) * (Q[4] - kinetic);
    const Expr zero = kb.constant(0.0);
    kb.output("F", std::vector<Expr>{zero, p * S[0], p * S[1], p * S[2], zero});
  });
}

}  // namespace dualjit::cfd
