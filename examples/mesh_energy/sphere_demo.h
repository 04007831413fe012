// `dualjit demo --problem sphere`: the spherical parameterization of a closed genus-0 mesh
// (spherical_map.h, after TinyAD's manifold optimization example) with L-BFGS. The mesh:
// DemoOptions::mesh (OFF or OBJ, e.g. bunny00.off of tools/fetch-meshes.sh), else a built-in
// lumpy ellipsoid (an icosphere stretched and bumped: star-shaped, so its Gauss map is a valid
// start, but far from a sphere). The fetched bunny is not the default: its ears, compressed
// about 1e-7 times by the start, take L-BFGS thousands of iterations. DemoOptions::size is the
// built-in icosphere's level (default 3 on the CPU, 5 on a GPU: L-BFGS needs about twice the
// iterations per level, and on a GPU each costs host work too) or the number of midpoint
// subdivisions of a file's mesh (default 0); DemoOptions::max_iterations caps the L-BFGS
// iterations of all rounds together (default 600 on the CPU, 2000 on a GPU).
//
// A mesh whose Gauss map inverts a face (a bunny) starts from the Gauss map of its
// conformalized mean curvature flow (Kazhdan et al. 2012) once that inverts none, else from
// SphericalMap's stereographic fallback.
//
// The unknowns are tangent-plane offsets from the current points, so the solve runs in rounds:
// up to 100 L-BFGS iterations from zero offsets, then the points are retracted to the sphere and
// the problem and its Assembler are built anew around them (the kernels come from the cache).
// The line search never steps past the first inversion: det(a, b, c) of the three retracted
// corners of each face, a cubic along the step, keeps its sign up to its smallest positive root
// (the log barrier makes the energy infinite there too, but the bound spares the failed trials).
// The rounds stop when the gradient has fallen by 1e-5 from the first, or when a round lowers
// the energy by less than 1e-8 of it (the energy has stopped decreasing).
//
// Facts: the mesh, vertices, faces, the start (Gauss map, after conformal flow, or the
// stereographic fallback), inverted triangles at the end (must be 0: the map is then
// injective), energy at the start and at the end, rounds, L-BFGS iterations, time per
// iteration, and the range of the per-face area ratio (spherical area over rest area scaled to 4
// pi). Files: sphere.obj (the points on the sphere, the mesh's connectivity), sphere.png (the mesh
// and its spherical image coloured by log2 of the area ratio), convergence.png. The report's solve
// concatenates the rounds' records (the point each round ends at is the next round's first record).
// ok: a stop criterion was reached, no triangle is inverted, and the energy never rose within a
// round.
#pragma once

#include <cstdint>
#include <span>

#include "examples/mesh_energy/demo.h"
#include "examples/mesh_energy/spherical_map.h"
#include "solvers/element_step_bound.h"

namespace dualjit::mesh_energy {

// The largest alpha in (0, inf] such that no face of `map` inverts along offsets + t d for t in
// [0, alpha), as a max-step rule on vectors of `space` (n_vertices x 2 offsets): per face the
// smallest positive root of the cubic det(q_a, q_b, q_c), q the unnormalized retraction
// p + b1 u + b2 v of each corner (injective_bound.nvrtc.h), on the GPU for device vectors.
// Calling it throws solvers::SolverError naming a face already inverted.
solvers::ElementStepBound injective_step_bound(const solvers::VectorSpace& space,
                                               const SphericalMap& map);

// Throws MeshReadError naming the file for a mesh that cannot be read or is not a closed
// genus-0 surface, and std::invalid_argument for a negative or too large size.
DemoReport run_sphere_demo(const DemoOptions& options);

}  // namespace dualjit::mesh_energy
