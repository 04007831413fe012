#include "examples/mesh_energy/symmetric_dirichlet.h"

#include <cmath>
#include <string>

#include "dsl/mat.h"

namespace dualjit::mesh_energy {

Kernel symmetric_dirichlet_kernel() {
  return Kernel("symmetric_dirichlet", [](KernelBuilder& kb) {
    const Vec<2> u0 = kb.input_vec<2>("u0"), u1 = kb.input_vec<2>("u1"), u2 = kb.input_vec<2>("u2");
    const auto p = kb.param("rest", 5);  // Dm^-1 row-major, area
    const Mat2 dm_inv = Mat2::from_rows({Vec<2>({p[0], p[1]}), Vec<2>({p[2], p[3]})});
    const Mat2 j = Mat2::from_cols({u1 - u0, u2 - u0}) * dm_inv;
    kb.output("energy", p[4] * (squared_frobenius_norm(j) + squared_frobenius_norm(inverse(j))));
  });
}

std::vector<double> symmetric_dirichlet_params(const TriMesh& rest,
                                               const std::filesystem::path& source) {
  std::vector<double> out;
  out.reserve(rest.n_faces() * 5);
  for (int64_t f = 0; f < rest.n_faces(); ++f) {
    const double* a = &rest.x[rest.faces[f * 3] * 3];
    const double* b = &rest.x[rest.faces[f * 3 + 1] * 3];
    const double* c = &rest.x[rest.faces[f * 3 + 2] * 3];
    double e1[3], e2[3];
    for (int k = 0; k < 3; ++k) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k];
    // Frame: t along e1, s = n x t in the plane; e1 = (|e1|, 0), e2 = (e2.t, e2.s).
    const double l1 = std::sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                         e1[0] * e2[1] - e1[1] * e2[0]};
    const double area2 = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(area2 > 1e-14 * l1 * l1) || !(l1 > 0)) {
      throw MeshReadError(source, 0, "face " + std::to_string(f) + " has zero rest area");
    }
    const double x2 = (e2[0] * e1[0] + e2[1] * e1[1] + e2[2] * e1[2]) / l1;
    const double y2 = area2 / l1;  // the height over e1
    // Dm = [[l1, x2], [0, y2]]; its inverse is upper triangular.
    out.insert(out.end(), {1.0 / l1, -x2 / (l1 * y2), 0.0, 1.0 / y2, 0.5 * area2});
  }
  return out;
}

}  // namespace dualjit::mesh_energy
