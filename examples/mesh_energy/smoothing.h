// Laplacian smoothing as an energy problem: the sum of the mesh's squared edge lengths
// (smoothing_energy.h) over every vertex's position, optionally with the boundary pinned. Its
// gradient at a vertex is 2 (valence x_i - sum of the neighbours), so a gradient step is an
// umbrella-Laplacian step. The boundary is pinned the way every energy pins vertices: as
// solvers::PinnedDofs that the solvers keep at their starting values, so the problem has one
// term over all edges. With the boundary pinned (and every piece of the mesh touching it) the
// Hessian's free block is positive definite: one Newton step lands on the harmonic (membrane)
// surface spanned by the boundary.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "backends/assembly/problem.h"
#include "examples/mesh_energy/tri_mesh.h"
#include "solvers/pinned.h"

namespace dualjit::mesh_energy {

struct Smoothing {
  assembly::Problem problem;      // 3-wide, node v is mesh vertex v; term "edges"
  std::vector<int32_t> boundary;  // vertices on an edge of only one face, ascending
  solvers::PinnedDofs pinned;     // the boundary's vertices when pinned, else nothing
  std::vector<double> x;          // every vertex's rest position, the initial state
};

// Term "edges" (edge_length_squared over every edge of the mesh). A closed mesh has no
// boundary, so nothing is pinned. Throws MeshReadError naming `source` and the face for bad
// connectivity (check_connectivity), and when pinning leaves no free vertex.
Smoothing smoothing_problem(const TriMesh& mesh, const std::filesystem::path& source,
                            bool pin_boundary = false);

}  // namespace dualjit::mesh_energy
