#include "tools/applications.h"

#include "examples/mesh_energy/cloth_demo.h"
#include "examples/mesh_energy/neohookean_demo.h"
#include "examples/mesh_energy/param_demo.h"
#include "examples/mesh_energy/smooth_demo.h"
#include "examples/mesh_energy/sphere_demo.h"

namespace dualjit::tools {

const std::vector<Application>& applications() {
  static const std::vector<Application> table = {
      {"cloth",
       "mass-spring cloth (k = 1e5) hanging from two corners: quasi-static implicit-Euler steps "
       "to rest, projected Newton",
       "grid side n", false, mesh_energy::run_cloth_demo},
      {"param",
       "symmetric Dirichlet parameterization of a disk from Tutte's embedding: projected Newton, "
       "flip-free line search",
       "built-in disk's rings, or subdivisions of --mesh", true, mesh_energy::run_param_demo},
      {"sphere",
       "spherical map of a closed genus-0 mesh: L-BFGS on tangent offsets, barrier against "
       "inversion",
       "built-in icosphere's level, or subdivisions of --mesh", true, mesh_energy::run_sphere_demo},
      {"smooth",
       "Laplacian smoothing of a noisy mesh, boundary pinned: gradient descent, Newton for "
       "comparison",
       "built-in disk's rings, or subdivisions of --mesh", true, mesh_energy::run_smooth_demo},
      {"neohookean",
       "stable Neo-Hookean cantilever of tets sagging under gravity: Newton to equilibrium",
       "cells across the 4:1:1 beam", false, mesh_energy::run_neohookean_demo},
  };
  return table;
}

const Application* find_application(const std::string& name) {
  for (const Application& a : applications())
    if (a.name == name) return &a;
  return nullptr;
}

}  // namespace dualjit::tools
