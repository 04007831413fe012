// The Neo-Hookean demo (`dualjit demo --problem neohookean`, and an example to copy): a 4 x 1 x 1
// m cantilever beam of stable Neo-Hookean tetrahedra (a soft rubber: E = 5 MPa, nu = 0.3,
// 1000 kg/m^3), clamped at x = 0 and sagging under its own weight (elastic_box of
// neo_hookean_problem.h), solved for its static equilibrium in one Newton solve from the rest
// shape (sparse Cholesky on the CPU, PCG on the GPU): damped steps while the beam bends, then
// quadratic convergence. The Hessian is the exact one, shifted by Newton where indefinite: the
// PD-projected one converges only linearly here (neohookean_demo.cpp says why).
#pragma once

#include "examples/mesh_energy/demo.h"

namespace dualjit::mesh_energy {

// size: cells across the beam s >= 1 (4s x s x s cells, 6 tets each; default 6 on the CPU, 24
// on a GPU); max_iterations: Newton iterations (default 100). Writes neohookean.obj (the
// deformed boundary surface), neohookean.png (it, coloured by displacement) and
// convergence.png. ok when Newton converged, the clamped vertices did not move at all, no tet
// inverted and the tip went down. Throws std::invalid_argument for s < 1 or an input mesh.
DemoReport run_neohookean_demo(const DemoOptions& options);

}  // namespace dualjit::mesh_energy
