// The spherical parameterization of a closed genus-0 mesh, after TinyAD's manifold optimization
// example: the unknowns are 2D offsets in each vertex's tangent plane (a 2-wide node field), each
// point retracted to the unit sphere as x = normalize(p + b1 u + b2 v), and after every step the
// points move there and the tangent frames are rebuilt (the offsets start again from zero), so
// the optimisation never leaves the sphere and never needs a constraint.
//
// Per triangle (a, b, c on the sphere, rest area A and inverse rest edge matrix Dm^-1):
//   A [ tr G (1 + 1 / det G) - mu log(det(a, b, c) / (2 A)) ]
// with G = J^T J, J = [b - a, c - a] Dm^-1 (3 x 2): the symmetric Dirichlet energy of the map from
// the rest triangle to the spherical triangle's chord triangle (|J|^2 + |J^+|^2), plus a log
// barrier on the signed volume with the origin, which is positive exactly when the triangle is
// oriented along the outward normal and goes to infinity as the triangle reaches a great circle,
// i.e. as it is about to invert. The stretch term alone cannot see inversions: three distinct
// points on a great circle have a chord triangle of positive area. Inverted triangles have an
// infinite energy. The rest mesh is scaled to the sphere's area, 4 pi.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "backends/assembly/problem.h"
#include "dsl/kernel.h"
#include "examples/mesh_energy/tri_mesh.h"

namespace dualjit::mesh_energy {

// Kernel "spherical_map": inputs u0, u1, u2 (tangent-plane offsets, 2 each); params frame0,
// frame1, frame2 (9 each: the corner's point p, then b1 and b2) and rest (5: Dm^-1 row-major,
// rest area); uniform barrier (mu); output the energy above.
Kernel spherical_map_kernel();

// Faces (n x 3) whose spherical triangle is inverted or degenerate: det(a, b, c) <= 0. Throws
// std::invalid_argument for a points size that is not a multiple of 3 or an index out of range.
int64_t count_inverted(std::span<const int32_t> faces, std::span<const double> points);

// The Gauss map of the vertices centred at the surface's area centroid: each vertex's direction
// from it. Injective for star-shaped meshes (the icosphere, ellipsoids), not in general.
std::vector<double> gauss_map(const TriMesh& mesh);

// An injective map of any closed genus-0 mesh, for when the Gauss map is not: vertex 0 removed,
// the remaining disk given Tutte's embedding (parameterization.h), scaled down and lifted by
// inverse stereographic projection to a cap around the north pole, vertex 0 at the south pole.
// The scale is chosen per mesh so that every lifted triangle keeps its orientation (a planar
// triangle (a, b, c) stays positive while s^2 det[x y |x|^2] < det[x y 1]). Badly distorted,
// but a valid start. Throws MeshReadError naming `source` if the mesh minus vertex 0 is not a
// disk.
std::vector<double> stereographic_tutte_map(const TriMesh& mesh,
                                            const std::filesystem::path& source);

class SphericalMap {
 public:
  // Starts from gauss_map, or from stereographic_tutte_map when that inverts a triangle.
  // Throws MeshReadError naming `source` unless the mesh is a closed genus-0 surface
  // (check_surface, no boundary, Euler characteristic 2), and for a zero-area face.
  SphericalMap(TriMesh mesh, std::filesystem::path source, double barrier = 0.1);
  // Starts from `points` (n_vertices x 3, normalised here; empty: as above). Throws
  // std::invalid_argument naming `source` for a wrong size, a zero or non-finite point, an
  // inverted face or a barrier weight that is not positive.
  SphericalMap(TriMesh mesh, std::filesystem::path source, std::vector<double> points,
               double barrier = 0.1);

  const TriMesh& mesh() const { return mesh_; }
  const std::vector<double>& points() const { return points_; }  // n_vertices x 3, unit
  // n_vertices x 6: b1, b2, an orthonormal basis of the tangent plane at each point with
  // b1 x b2 = p.
  const std::vector<double>& frames() const { return frames_; }
  bool started_from_fallback() const { return fallback_; }
  double barrier() const { return barrier_; }

  // The problem at the current points: a 2-wide node field (the offsets, zero at the current
  // points), one energy term "spherical_map" over the faces. Independent of this object: build a
  // new one (and a new Assembler) after retract().
  assembly::Problem problem() const;
  // normalize(p + b1 u + b2 v) per vertex, for offsets n_vertices x 2; the map is unchanged.
  std::vector<double> retracted(std::span<const double> offsets) const;
  // Moves the points to retracted(offsets) and rebuilds the frames.
  void retract(std::span<const double> offsets);
  int64_t inverted() const { return count_inverted(mesh_.faces, points_); }

 private:
  void set_points(std::vector<double> points);

  TriMesh mesh_;
  std::filesystem::path source_;
  double barrier_;
  std::shared_ptr<const Kernel> kernel_;
  std::vector<double> rest_;  // per face: Dm^-1 (4), area, of the rest mesh scaled to 4 pi
  std::vector<double> points_, frames_;
  bool fallback_ = false;
};

}  // namespace dualjit::mesh_energy
