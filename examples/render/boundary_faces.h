// The boundary surface of a tetrahedral mesh, for drawing a (deformed) volume mesh as a
// triangle mesh.
#pragma once

#include <cstdint>
#include <vector>

#include "examples/mesh_energy/tri_mesh.h"

namespace dualjit::render {

// The faces (n_faces x 3) that belong to exactly one tet of `tets` (n_tets x 4, positively
// oriented as cfd::TetMesh describes: det(b - a, c - a, d - a) > 0), oriented with their
// right-hand normals pointing out of the mesh. The orientation comes from the connectivity
// alone, so a deformed mesh with inverted tets keeps the surface of its rest shape. Faces come
// in the order of their tets (then (b, c, d), (a, d, c), (a, b, d), (a, c, b)). Throws
// std::invalid_argument for a size that is not a multiple of 4, a negative index, a tet with a
// repeated node, a face shared
// by more than two tets, or two tets that traverse a shared face the same way (not consistently
// oriented).
std::vector<int32_t> boundary_faces(const std::vector<int32_t>& tets);

// A triangle mesh of the boundary faces over all of `xyz` (n_nodes x 3, so per-node data keeps
// its indices; interior nodes are simply unused). Throws std::invalid_argument as above and for
// an index past the last node.
mesh_energy::TriMesh boundary_surface(const std::vector<double>& xyz,
                                      const std::vector<int32_t>& tets);

}  // namespace dualjit::render
