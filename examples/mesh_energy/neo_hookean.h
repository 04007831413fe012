// Stable Neo-Hookean elasticity of a tetrahedral mesh (Smith, de Goes & Kim 2018): per tet, its
// rest volume times mu/2 (I_C - 3) + lambda/2 (J - alpha)^2 - mu/2 log(I_C + 1), with F the
// deformation gradient, I_C = |F|_F^2, J = det F and alpha = 1 + 3 mu / (4 lambda), which
// makes the rest shape stress-free. Defined through inversion (J <= 0), unlike the classic
// Neo-Hookean's log J.
#pragma once

#include <cstdint>
#include <vector>

#include "dsl/kernel.h"

namespace dualjit::mesh_energy {

// Kernel "stable_neo_hookean": inputs x0..x3 (3 each); params Dm^-1 (3x3, row-major) and the
// rest volume; uniforms mu and lambda (Lame parameters); output the energy.
Kernel stable_neo_hookean_kernel();

// Per tet (n x 4 vertex indices into x, n_vertices x 3): Dm^-1 (9) and the rest volume.
// Throws std::invalid_argument naming the tet for a non-positive rest volume (an inverted or
// flat tet).
std::vector<double> neo_hookean_params(const std::vector<double>& x,
                                       const std::vector<int32_t>& tets);

struct Lame {
  double mu = 0, lambda = 0;
};
// From Young's modulus E > 0 and Poisson's ratio 0 <= nu < 0.5.
Lame lame_parameters(double young, double poisson);

}  // namespace dualjit::mesh_energy
