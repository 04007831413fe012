// Boundary conditions of the node-centred Euler residual by boundary face: each face of an
// EdgeMesh's boundary is far field or slip wall, and each boundary node gets the outward area
// of its faces of each kind (a third of each face's area vector, as EdgeMesh::bnode_area).
#pragma once

#include <array>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "dsl/kernel.h"
#include "examples/cfd/edge_mesh.h"
#include "examples/cfd/gmsh_reader.h"
#include "examples/cfd/tet_mesh.h"

namespace dualjit::cfd {

enum class BoundaryKind { farfield, slip_wall };

// n_nodes * 3 each; farfield + slip_wall == EdgeMesh::bnode_area.
struct BoundaryAreas {
  std::vector<double> farfield, slip_wall;
};

// kind_of(centroid, outward area vector) of each boundary face.
using BoundaryClassifier =
    std::function<BoundaryKind(const std::array<double, 3>&, const std::array<double, 3>&)>;
BoundaryAreas classify_boundary(const EdgeMesh& em, const TetMesh& mesh,
                                const BoundaryClassifier& kind_of);

// The kind of each boundary face from its physical group in a Gmsh file (read_gmsh_tagged), e.g.
// {{"farfield", BoundaryKind::farfield}, {"wall", BoundaryKind::slip_wall}}; em must be
// build_edge_mesh(gmsh.mesh). Throws std::invalid_argument naming a group of the boundary that
// `kinds` has no kind for, or when em's nodes or boundary faces are not gmsh's.
BoundaryAreas tagged_boundary(const EdgeMesh& em, const GmshMesh& gmsh,
                              const std::map<std::string, BoundaryKind>& kinds);

// Every boundary face far field.
BoundaryAreas farfield_boundary(const EdgeMesh& em);

// Kernel "roe_slip_wall": input Q[5]; param S[3] (outward wall area); uniform gamma; output
// F[5] = (0, p S, 0): an inviscid wall passes no mass or energy, only the pressure's force.
Kernel roe_slip_wall_kernel();

}  // namespace dualjit::cfd
