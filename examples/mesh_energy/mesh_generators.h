// Built-in meshes for the energies' tests, demos and benchmarks: the cloth grid of the
// per-element AD paper's benchmark, a disk, an icosphere and a lumpy ellipsoid. (A box of
// tetrahedra is cfd::box_tet_mesh, examples/cfd/tet_mesh.h.)
#pragma once

#include <cstdint>
#include <vector>

#include "examples/mesh_energy/tri_mesh.h"

namespace dualjit::mesh_energy {

// An n x n grid in the x-z plane (y = 0) with spacing 1 / (n - 1), vertex v = i n + j at
// (j h, 0, i h); springs (v, v + 1), (v, v + n), (v, v + n + 1) wherever both ends exist, with
// their rest lengths; the triangles those springs bound, two per cell, oriented with +y normals.
struct ClothGrid {
  TriMesh mesh;
  std::vector<int32_t> springs;  // n_springs x 2
  std::vector<double> rest;      // n_springs
  int n = 0;
};
// Throws std::invalid_argument for n < 2 or more than 2^31 - 1 vertices.
ClothGrid cloth_grid(int n);

// A unit disk in the x-y plane: a centre vertex and `rings` rings of 6 r vertices (r = 1 ..
// rings) at radius r / rings, triangulated ring to ring (6 rings^2 triangles), counter-clockwise
// seen from +z. Throws std::invalid_argument for rings < 1.
TriMesh disk(int rings);

// The unit icosahedron subdivided `level` times, new vertices projected to the sphere:
// 10 * 4^level + 2 vertices, 20 * 4^level faces, outward orientation. Throws
// std::invalid_argument for level < 0 or > 12.
TriMesh icosphere(int level);

// icosphere(level) with two lumps, stretched to 1.8 x 1 x 0.7: star-shaped about the origin (each
// vertex moves along its own direction), so the Gauss map is injective, yet far from a sphere
// (the spherical parameterization's built-in mesh).
TriMesh lumpy_ellipsoid(int level);

}  // namespace dualjit::mesh_energy
