// Tetrahedral meshes for the CFD example: storage, a structured box generator, volumes.
#pragma once

#include <cstdint>
#include <vector>

namespace dualjit::cfd {

// An unstructured tetrahedral mesh. Tets are positively oriented: for tet (a, b, c, d),
// det(b - a, c - a, d - a) > 0, so each face opposite a vertex, taken as (b, c, d),
// (a, d, c), (a, b, d), (a, c, b), has its right-hand normal pointing out of the tet.
struct TetMesh {
  int64_t n_nodes = 0;
  std::vector<double> xyz;    // n_nodes * 3, node-major (x, y, z)
  std::vector<int32_t> tets;  // n_tets * 4, positively oriented

  int64_t n_tets() const { return static_cast<int64_t>(tets.size() / 4); }
};

// A box [0, lx] x [0, ly] x [0, lz] of nx * ny * nz hexahedra, each split into 6 tetrahedra
// around its main diagonal (Kuhn/Freudenthal split: the same split in every cell, so faces of
// neighbouring cells match). Node (i, j, k) has index i + (nx + 1) * (j + (ny + 1) * k).
// Throws std::invalid_argument for non-positive sizes or more nodes than int32 can index.
TetMesh box_tet_mesh(int nx, int ny, int nz, double lx = 1, double ly = 1, double lz = 1);

// Signed volume of tet t (positive for a positively oriented tet).
double tet_signed_volume(const TetMesh& mesh, int64_t t);

// Sum of the signed volumes of all tets.
double total_volume(const TetMesh& mesh);

}  // namespace dualjit::cfd
