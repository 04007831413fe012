#include "examples/cfd/boundary.h"

#include <stdexcept>
#include <string>

namespace dualjit::cfd {

BoundaryAreas classify_boundary(const EdgeMesh& em, const TetMesh& mesh,
                                const BoundaryClassifier& kind_of) {
  if (mesh.n_nodes != em.n_nodes)
    throw std::invalid_argument("classify_boundary: a mesh of " + std::to_string(mesh.n_nodes) +
                                " nodes for edge data of " + std::to_string(em.n_nodes));
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
        kind_of(centroid, area) == BoundaryKind::slip_wall ? out.slip_wall : out.farfield;
    for (int k = 0; k < 3; ++k)
      for (int d = 0; d < 3; ++d) target[static_cast<size_t>(v[k]) * 3 + d] += n[d] / 6.0;
  }
  return out;
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
