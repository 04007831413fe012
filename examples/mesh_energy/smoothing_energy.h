// Laplacian smoothing's energy: the sum over a mesh's edges of their squared lengths (its
// gradient at a vertex is twice the umbrella Laplacian times the valence).
#pragma once

#include <cstdint>
#include <vector>

#include "dsl/kernel.h"
#include "examples/mesh_energy/tri_mesh.h"

namespace dualjit::mesh_energy {

// Kernel "edge_length_squared": inputs xa, xb (3 each); output |xa - xb|^2.
Kernel edge_length_squared_kernel();

// The undirected edges of a triangle mesh, each once (n_edges x 2, a < b), in a fixed order.
std::vector<int32_t> mesh_edges(const TriMesh& mesh);

}  // namespace dualjit::mesh_energy
