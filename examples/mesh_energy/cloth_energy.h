// The implicit-Euler cloth step of the per-element AD paper's benchmark, as two energy terms
// over the vertices' positions x:
//   E = sum_v 1/2 m_v |x_v - xhat_v|^2
//     + h^2 [ sum_e 1/2 k l_e^2 (|x_i - x_j|^2 / l_e^2 - 1)^2 - sum_v m_v g . x_v ]
// (xhat the predicted positions, l_e the rest lengths), and the problem of a cloth grid.
#pragma once

#include <vector>

#include "backends/assembly/problem.h"
#include "dsl/kernel.h"
#include "examples/mesh_energy/mesh_generators.h"

namespace dualjit::mesh_energy {

// Kernel "cloth_spring": inputs xi, xj (3 each); param the rest length; uniforms k and h;
// output h^2 1/2 k l^2 (|xi - xj|^2 / l^2 - 1)^2.
Kernel cloth_spring_kernel();
// Kernel "cloth_inertia": input x (3); params xhat (3) and the mass; uniforms h and g (3);
// output 1/2 m |x - xhat|^2 - h^2 m g . x.
Kernel cloth_inertia_kernel();

struct ClothStep {
  double k = 1e5, h = 0.01;
  double g[3] = {0.0, -9.8, 0.0};
  double mass = 0;  // per vertex; <= 0: 1 / n_vertices
};
// Terms "springs" (the grid's springs) and "inertia" (every vertex, predicted at xhat,
// n_vertices x 3) over a 3-wide node field.
assembly::Problem cloth_problem(const ClothGrid& grid, const std::vector<double>& xhat,
                                const ClothStep& step = {});

}  // namespace dualjit::mesh_energy
