// An elastic body to minimise: a box of stable Neo-Hookean tetrahedra (neo_hookean.h) made of a
// material given as Young's modulus, Poisson's ratio and density, under gravity on lumped
// vertex masses, with the vertices of chosen faces of the box pinned (a face for a cantilever,
// the bottom for a block standing on the ground). The energy over the vertices' positions is
//   sum_t V_t psi(F_t) - sum_v m_v g . x_v,   m_v = density x (a quarter of each incident V_t),
// so its minimum is the static equilibrium.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "backends/assembly/problem.h"
#include "dsl/kernel.h"
#include "examples/cfd/tet_mesh.h"
#include "examples/mesh_energy/neo_hookean.h"
#include "solvers/pinned.h"

namespace dualjit::mesh_energy {

// Kernel "gravity": input x (3); param the mass; uniforms gx, gy, gz; output -m g . x.
Kernel gravity_kernel();

// A face of the box [0, lx] x [0, ly] x [0, lz].
enum class BoxFace { XMin, XMax, YMin, YMax, ZMin, ZMax };

struct ElasticBox {
  int nx = 4, ny = 1, nz = 1;         // cells along each axis (6 tets each)
  double lx = 4, ly = 1, lz = 1;      // the box's size at rest (m)
  double young = 1e6, poisson = 0.3;  // Pa, dimensionless (0 <= nu < 0.5)
  double density = 1000;              // kg / m^3
  std::array<double, 3> gravity{0, 0, -9.8};
  // Their vertices keep their rest positions (the default: a cantilever clamped at x = 0).
  std::vector<BoxFace> pinned_faces{BoxFace::XMin};
};

struct ElasticBody {
  cfd::TetMesh mesh;          // the rest shape
  assembly::Problem problem;  // 3-wide node field (positions); terms "elastic", "gravity"
  Lame lame;
  std::vector<double> masses;            // lumped, per vertex; they sum to density x volume
  solvers::PinnedDofs pinned;            // whole vertices on the pinned faces
  std::vector<int32_t> pinned_vertices;  // ascending
};

// Throws std::invalid_argument naming the parameter for non-positive cells or sizes, E <= 0,
// nu outside [0, 0.5), a non-positive density or non-finite gravity.
ElasticBody elastic_box(const ElasticBox& box);

}  // namespace dualjit::mesh_energy
