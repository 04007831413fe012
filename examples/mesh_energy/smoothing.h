// Laplacian smoothing as an energy problem: the sum of the mesh's squared edge lengths
// (smoothing_energy.h) over the vertices' positions, optionally with the boundary pinned. Its
// gradient at a free vertex is 2 (valence x_i - sum of the neighbours), so a gradient step is an
// umbrella-Laplacian step. With the boundary pinned (and every piece of the mesh touching it) the
// Hessian is positive definite: one Newton step lands on the harmonic (membrane) surface spanned
// by the boundary.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "backends/assembly/problem.h"
#include "dsl/kernel.h"
#include "examples/mesh_energy/tri_mesh.h"

namespace dualjit::mesh_energy {

// Kernel "edge_to_pinned": input xa (3); param xb (3), a pinned neighbour; output |xa - xb|^2.
Kernel edge_to_pinned_kernel();

struct Smoothing {
  assembly::Problem problem;           // 3-wide: the free vertices' positions
  std::vector<int32_t> boundary;       // vertices on an edge of only one face, ascending
  std::vector<int32_t> free_vertices;  // node i of the problem is mesh vertex free_vertices[i]
  std::vector<double> x;               // the free vertices' rest positions, the initial state
  std::vector<double> pinned_x;        // every vertex's rest position, for the pinned ones

  // All vertices' positions (n_vertices x 3) for a state of the problem: free ones from it,
  // pinned ones at rest. Throws assembly::ProblemError for a wrong size.
  std::vector<double> positions(std::span<const double> state) const;
};

// Terms "edges" (edge_length_squared between free vertices) and, when the boundary is pinned,
// "pinned edges" (edge_to_pinned from a free vertex to a pinned one; edges between two pinned
// vertices are constant and left out). Without pinning every vertex is free, in order. A closed
// mesh has no boundary, so nothing is pinned. Throws MeshReadError naming `source` and the face
// for bad connectivity (check_connectivity), and when pinning leaves no free vertex.
Smoothing smoothing_problem(const TriMesh& mesh, const std::filesystem::path& source,
                            bool pin_boundary = false);

}  // namespace dualjit::mesh_energy
