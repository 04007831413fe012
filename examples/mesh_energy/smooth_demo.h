// `dualjit demo --problem smooth`: Laplacian smoothing of a noisy mesh as energy minimisation
// (smoothing.h): the sum of squared edge lengths over the vertices' positions, the boundary
// pinned, minimised by gradient descent, whose every step is an umbrella-Laplacian smoothing
// step (high frequencies, the noise, go first). The mesh: DemoOptions::mesh (OFF or OBJ; a
// closed mesh has nothing to pin and shrinks), else a built-in noisy saddle: disk(rings) with
// its boundary on z = 0.25 sin(3 theta), the interior on the smooth surface 0.25 r^3 sin(3 theta)
// plus noise in every direction. DemoOptions::size is the rings (default 30 on the CPU, 400 on
// a GPU) or the subdivisions of a file's mesh (default 0); DemoOptions::max_iterations the
// gradient descent steps (default 200 on the CPU, 400 on a GPU: Laplacian smoothing is run for
// a number of steps, not to the harmonic limit, which would also flatten what is not noise).
//
// For comparison, Newton's method (sparse Cholesky on the CPU, block-Jacobi PCG on a GPU) from
// the same start reaches the minimum, the harmonic surface spanned by the boundary, in one step:
// the energy is quadratic.
//
// Facts: the mesh, vertices, edges, pinned boundary vertices, the energy (the whole mesh's sum)
// before, after gradient descent and at Newton's minimum, the share of the removable energy
// gradient descent removed, gradient descent steps and time per step, Newton's steps, and the
// largest displacement of a boundary vertex (exactly 0). Files: smooth.obj (the smoothed mesh),
// smooth.png (before and after), convergence.png (gradient descent). ok: gradient descent ran
// its steps (or converged) with the energy never rising, Newton converged in at most two steps
// below it, and the boundary did not move.
#pragma once

#include "examples/mesh_energy/demo.h"

namespace dualjit::mesh_energy {

// Throws MeshReadError naming the file for a mesh that cannot be read or is not valid, and
// std::invalid_argument for a negative or too large size.
DemoReport run_smooth_demo(const DemoOptions& options);

}  // namespace dualjit::mesh_energy
