// `dualjit demo --problem param`: the symmetric Dirichlet parameterization of a disk-topology
// mesh (Smith & Schaefer 2015; the first application of the per-element AD paper and TinyAD).
// The mesh: DemoOptions::mesh (OFF or OBJ), else mannequin-devil.off when tools/fetch-meshes.sh
// has put it in mesh_directory() (demo_meshes.h), else a built-in bumpy disk (disk(rings) with
// two Gaussian bumps, so that it has no isometric flattening). DemoOptions::size is the number
// of midpoint subdivisions of a file's mesh (default 0; for mannequin-devil picked by the demo
// on a GPU, enough for about 0.8 M vertices) and the built-in disk's rings (default 24 on the
// CPU, 400 on a GPU). A subdivided mesh is solved coarse to fine: the file's mesh from Tutte's
// embedding first, then each subdivision from the subdivided optimum.
//
// Tutte's embedding (mean value weights, scaled to the rest area) is the flip-free start; then
// projected Newton (each face's Hessian made positive definite in the assembly, eigenvalues
// clamped to 1e-9, as TinyAD does), with a line search that never steps past the first flip
// (flip_free_step_bound), so every iterate is flip-free and the energy finite. The linear solver
// is the sparse Cholesky factorization on the CPU and block-Jacobi PCG on a GPU (DevicePcg, on
// the Hessian the assembly leaves in GPU memory).
//
// Facts: the mesh, vertices, faces, boundary vertices, energy / (4 x area) at Tutte's start and
// at the end (1 at an isometry), flipped triangles at the end (must be 0), max and mean
// per-face distortion (|J|^2 + |J^-1|^2) / 4, Newton iterations (in all and per level) and time
// per iteration. The report's solve holds every level's records, one history. Files:
// param.obj (the mesh with its UVs), param_uv.png (the UV layout coloured by per-face
// distortion, flipped triangles in red), convergence.png. ok: Newton converged on every level,
// no triangle is flipped, the energy never rose and ended below Tutte's.
#pragma once

#include "examples/mesh_energy/demo.h"

namespace dualjit::mesh_energy {

// Throws MeshReadError naming the file for a mesh that cannot be read or is not a disk, and
// std::invalid_argument for a negative or too large size.
DemoReport run_param_demo(const DemoOptions& options);

}  // namespace dualjit::mesh_energy
