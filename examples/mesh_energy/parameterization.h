// The symmetric Dirichlet parameterization of a disk-topology mesh (Smith & Schaefer 2015; the
// first application of the per-element AD paper and of TinyAD): Tutte's embedding as the
// flip-free start, the problem over the vertices' UVs, and the largest step along a direction
// that keeps every triangle's orientation, which a line search must stay under because the
// energy is infinite where a triangle flips.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "backends/assembly/problem.h"
#include "examples/mesh_energy/tri_mesh.h"
#include "solvers/element_step_bound.h"

namespace dualjit::mesh_energy {

// The disk's boundary vertices in the order the faces traverse its edges (interior on the left).
// Throws MeshReadError naming `source` when the mesh is not a disk: what check_surface rejects,
// no boundary (a closed surface), several boundary loops, a boundary that touches itself at a
// vertex, or an Euler characteristic other than 1 (a handle).
std::vector<int32_t> boundary_loop(const TriMesh& mesh, const std::filesystem::path& source);

// Uniform: every neighbour weighs 1. MeanValue: Floater's mean value weights, positive and
// cotangent-free, so the embedding follows the rest shape more closely.
enum class TutteWeights { Uniform, MeanValue };

// Tutte's embedding, n_vertices x 2: the boundary loop on the unit circle, counter-clockwise and
// spaced by arc length; every interior vertex the weighted average of its neighbours (a sparse
// solve). Positive weights and a convex boundary give no flipped triangle (Tutte 1963, Floater
// 2003). Throws as boundary_loop does, and MeshReadError naming a face with a zero-length edge
// (mean value weights) or the mesh when the system cannot be solved.
std::vector<double> tutte_embedding(const TriMesh& mesh, const std::filesystem::path& source,
                                    TutteWeights weights = TutteWeights::Uniform);

// A 2-wide node field (the UVs) and the energy term "symmetric_dirichlet" over the faces, rest
// shapes from mesh.x. Throws as check_connectivity and symmetric_dirichlet_params do.
assembly::Problem symmetric_dirichlet_problem(const TriMesh& mesh,
                                              const std::filesystem::path& source);

struct Parameterization {
  assembly::Problem problem;      // symmetric_dirichlet_problem
  std::vector<double> uv;         // Tutte's embedding scaled to the rest area: a finite start
  std::vector<int32_t> boundary;  // boundary_loop
};
Parameterization parameterization(const TriMesh& mesh, const std::filesystem::path& source,
                                  TutteWeights weights = TutteWeights::Uniform);

// Faces (n x 3) whose UV triangle has a non-positive signed area. Throws std::invalid_argument
// for an odd uv size or a face index out of range (naming the face).
int64_t count_flipped(std::span<const int32_t> faces, std::span<const double> uv);

// The largest alpha in (0, inf] such that every triangle keeps a positive signed area along
// uv + t duv for all t in [0, alpha), as a max-step rule on vectors of `space` (n_vertices x 2
// UVs): per triangle the smallest positive root of the quadratic det(t) (flip_free_bound.nvrtc.h),
// on the GPU for device vectors. Throws solvers::SolverError for an index out of range (naming
// the face); calling it throws one naming a triangle already flipped or degenerate.
solvers::ElementStepBound flip_free_step_bound(const solvers::VectorSpace& space,
                                               std::span<const int32_t> faces, int64_t n_vertices);

}  // namespace dualjit::mesh_energy
