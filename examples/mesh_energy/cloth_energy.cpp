#include "examples/mesh_energy/cloth_energy.h"

#include <stdexcept>

namespace dualjit::mesh_energy {

Kernel cloth_spring_kernel() {
  return Kernel("cloth_spring", [](KernelBuilder& kb) {
    const Vec<3> xi = kb.input_vec<3>("xi"), xj = kb.input_vec<3>("xj");
    const Expr l = kb.param("rest_length", 1)[0];
    const Expr k = kb.uniform("k"), h = kb.uniform("h");
    const Expr s = squared_norm(xi - xj) / (l * l) - 1.0;
    kb.output("energy", h * h * 0.5 * k * l * l * s * s);
  });
}

Kernel cloth_inertia_kernel() {
  return Kernel("cloth_inertia", [](KernelBuilder& kb) {
    const Vec<3> x = kb.input_vec<3>("x");
    const auto p = kb.param("predicted_mass", 4);
    const Expr h = kb.uniform("h");
    const Vec<3> g({kb.uniform("gx"), kb.uniform("gy"), kb.uniform("gz")});
    const Vec<3> d = x - Vec<3>({p[0], p[1], p[2]});
    kb.output("energy", 0.5 * p[3] * squared_norm(d) - h * h * p[3] * dot(g, x));
  });
}

assembly::Problem cloth_problem(const ClothGrid& grid, const std::vector<double>& xhat,
                                const ClothStep& step) {
  const int64_t nv = grid.mesh.n_vertices();
  if (static_cast<int64_t>(xhat.size()) != nv * 3) {
    throw std::invalid_argument("cloth_problem: xhat has " + std::to_string(xhat.size()) +
                                " values, expected " + std::to_string(nv * 3));
  }
  assembly::Problem p(nv, 3);
  assembly::Term springs;
  springs.name = "springs";
  springs.kernel = std::make_shared<Kernel>(cloth_spring_kernel());
  springs.elements = {"springs", 2, grid.springs};
  springs.energy = true;
  springs.params = grid.rest;
  springs.uniforms = {step.k, step.h};
  p.add_term(std::move(springs));
  assembly::Term inertia;
  inertia.name = "inertia";
  inertia.kernel = std::make_shared<Kernel>(cloth_inertia_kernel());
  inertia.elements = {"vertices", 1, {}};
  inertia.energy = true;
  const double m = step.mass > 0 ? step.mass : 1.0 / nv;
  inertia.elements.conn.resize(nv);
  for (int64_t v = 0; v < nv; ++v) {
    inertia.elements.conn[v] = static_cast<int32_t>(v);
    inertia.params.insert(inertia.params.end(), {xhat[v * 3], xhat[v * 3 + 1], xhat[v * 3 + 2], m});
  }
  inertia.uniforms = {step.h, step.g[0], step.g[1], step.g[2]};
  p.add_term(std::move(inertia));
  return p;
}

}  // namespace dualjit::mesh_energy
