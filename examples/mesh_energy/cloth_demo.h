// The cloth demo (`dualjit demo --problem cloth`, and an example to copy): the per-element AD
// paper's cloth, cloth_grid(n) with springs of stiffness k = 1e5 and 1 kg spread over its
// vertices, hanging under gravity from the two corners of its z = 0 edge (vertices 0 and n - 1).
// A static drape: the grid is hung straight down from that edge (turned about the x axis, so
// every spring starts at its rest length), then quasi-static implicit-Euler steps of h = 1 s
// minimise the step energy of cloth_energy.h from rest (xhat = the previous positions, no
// velocity carried) with Newton's method on the PD-projected Hessian (sparse Cholesky on the
// CPU, PCG on the GPU), until no vertex moves: the last minimum is the static equilibrium of
// springs and gravity, where the weight hangs from the pins and stretches the springs near them
// by a few 1e-4.
//
// (Without bending stiffness, a cloth dropped flat wrinkles wherever it is compressed, and
// projected Newton converges only linearly there, taking tens of iterations per time step; hung
// straight down it converges quadratically in a few.)
#pragma once

#include "examples/mesh_energy/demo.h"

namespace dualjit::mesh_energy {

// size: the grid's side n >= 3 (default 40 on the CPU, 300 on a GPU); max_iterations: Newton
// iterations per step (default 100). Writes cloth.obj (the draped cloth), cloth.png (a view of
// it coloured by log10 of the spring strain) and convergence.png (|g| / h^2, a force, per
// Newton iteration). The report's solve holds every step's records as one history (a step's
// last point is the next one's first record; the energy still falls monotonically, since each
// step's inertia term restarts at 0) and ends at the final positions. ok when every step
// converged, the cloth came to rest, the free forces at rest are below 1e-6 of its weight, the
// pinned corners did not move at all and the centre hangs below them. Throws
// std::invalid_argument for n outside [3, 40000] or an input mesh (the demo builds its grid).
DemoReport run_cloth_demo(const DemoOptions& options);

}  // namespace dualjit::mesh_energy
