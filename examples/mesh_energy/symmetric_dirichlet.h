// The symmetric Dirichlet energy of a triangle mesh's parameterization (Smith & Schaefer 2015):
// per triangle, its rest area times |J|_F^2 + |J^-1|_F^2, J the 2x2 map from the triangle's
// rest shape (laid flat in its own plane) to its UV triangle. At least 4 area, with equality
// exactly at isometries; infinite as a triangle flips through zero area, so a line search that
// keeps every orientation keeps it finite.
#pragma once

#include <vector>

#include "dsl/kernel.h"
#include "examples/mesh_energy/tri_mesh.h"

namespace dualjit::mesh_energy {

// Kernel "symmetric_dirichlet": inputs u0, u1, u2 (the corners' UVs, 2 each); params the rest
// shape's inverse edge matrix Dm^-1 (2x2, row-major) and the rest area; output the energy.
Kernel symmetric_dirichlet_kernel();

// Per face of `rest`: Dm^-1 (4) and area, Dm = [e1 e2] the face's edges in an orthonormal
// frame of its plane. Throws MeshReadError naming `source` and the face for a zero-area face.
std::vector<double> symmetric_dirichlet_params(const TriMesh& rest,
                                               const std::filesystem::path& source);

}  // namespace dualjit::mesh_energy
