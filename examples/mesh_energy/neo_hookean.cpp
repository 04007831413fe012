#include "examples/mesh_energy/neo_hookean.h"

#include <stdexcept>
#include <string>

#include "dsl/mat.h"

namespace dualjit::mesh_energy {

Kernel stable_neo_hookean_kernel() {
  return Kernel("stable_neo_hookean", [](KernelBuilder& kb) {
    const Vec<3> x0 = kb.input_vec<3>("x0"), x1 = kb.input_vec<3>("x1"), x2 = kb.input_vec<3>("x2"),
                 x3 = kb.input_vec<3>("x3");
    const auto p = kb.param("rest", 10);  // Dm^-1 row-major, volume
    const Expr mu = kb.uniform("mu"), lambda = kb.uniform("lambda");
    Mat3 dm_inv;
    for (int k = 0; k < 9; ++k) dm_inv.m[k] = p[k];
    const Mat3 f = Mat3::from_cols({x1 - x0, x2 - x0, x3 - x0}) * dm_inv;
    const Expr ic = squared_frobenius_norm(f), j = determinant(f);
    const Expr alpha = 1.0 + 0.75 * mu / lambda;
    const Expr psi =
        0.5 * mu * (ic - 3.0) + 0.5 * lambda * (j - alpha) * (j - alpha) - 0.5 * mu * log(ic + 1.0);
    kb.output("energy", p[9] * psi);
  });
}

std::vector<double> neo_hookean_params(const std::vector<double>& x,
                                       const std::vector<int32_t>& tets) {
  std::vector<double> out;
  out.reserve(tets.size() / 4 * 10);
  for (size_t t = 0; t < tets.size() / 4; ++t) {
    double d[9];  // Dm, row-major: columns are the edges from vertex 0
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r)
        d[r * 3 + c] = x[tets[t * 4 + c + 1] * 3 + r] - x[tets[t * 4] * 3 + r];
    const double c0 = d[4] * d[8] - d[5] * d[7], c1 = d[5] * d[6] - d[3] * d[8],
                 c2 = d[3] * d[7] - d[4] * d[6];
    const double det = d[0] * c0 + d[1] * c1 + d[2] * c2;
    if (!(det > 0)) {
      throw std::invalid_argument("neo_hookean_params: tet " + std::to_string(t) +
                                  " has rest volume " + std::to_string(det / 6) +
                                  " (inverted or flat)");
    }
    const double inv[9] = {
        c0 / det, (d[2] * d[7] - d[1] * d[8]) / det, (d[1] * d[5] - d[2] * d[4]) / det,
        c1 / det, (d[0] * d[8] - d[2] * d[6]) / det, (d[2] * d[3] - d[0] * d[5]) / det,
        c2 / det, (d[1] * d[6] - d[0] * d[7]) / det, (d[0] * d[4] - d[1] * d[3]) / det};
    out.insert(out.end(), inv, inv + 9);
    out.push_back(det / 6);
  }
  return out;
}

Lame lame_parameters(double young, double poisson) {
  if (!(young > 0) || !(poisson >= 0 && poisson < 0.5)) {
    throw std::invalid_argument("lame_parameters: E = " + std::to_string(young) +
                                ", nu = " + std::to_string(poisson) + " (E > 0, 0 <= nu < 0.5)");
  }
  return {young / (2 * (1 + poisson)), young * poisson / ((1 + poisson) * (1 - 2 * poisson))};
}

}  // namespace dualjit::mesh_energy
