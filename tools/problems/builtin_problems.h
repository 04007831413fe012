// The problems the dualjit command knows without plugins.
#pragma once

#include <vector>

#include "tools/registry/problem_registry.h"

namespace dualjit::tools {

// cfd-roe: the Roe flux residual and FUN3D Jacobian on a box of tetrahedra (fused assembly).
ProblemRecipe cfd_roe_recipe();
// spring: a random mass-spring network's energy, gradient and Hessian per spring.
ProblemRecipe spring_recipe();
// spring-grid: the cloth step's energy, gradient, H v and Hessian assembled by the Assembler.
ProblemRecipe spring_grid_recipe();
// kinetics: a mechanism's production rates and their (T, Y) Jacobian per cell (GRI-3.0, or
// --mechanism FILE[:PHASE]); none when the project is built without yaml-cpp (no loader).
std::vector<ProblemRecipe> kinetics_recipes();

// Registers them all; idempotent.
void register_builtin_problems();

}  // namespace dualjit::tools
