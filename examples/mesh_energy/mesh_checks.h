// The checks the energy problem builders run on a triangle mesh before trusting it, so that bad
// input is an exception naming the mesh and the face rather than a crash or a singular solve.
#pragma once

#include <filesystem>

#include "examples/mesh_energy/tri_mesh.h"

namespace dualjit::mesh_energy {

// Throws MeshReadError naming `source` (a file or a generator) for coordinates that are not
// n_vertices x 3 or not finite (naming the vertex), faces that are not n_faces x 3, and a face
// with a vertex index out of range or a repeated vertex (naming the face).
void check_connectivity(const TriMesh& mesh, const std::filesystem::path& source);

// check_connectivity and check_manifold, then: at least one face, every vertex in some face and
// the faces one connected piece. Throws MeshReadError naming `source` and the vertex or face.
void check_surface(const TriMesh& mesh, const std::filesystem::path& source);

}  // namespace dualjit::mesh_energy
