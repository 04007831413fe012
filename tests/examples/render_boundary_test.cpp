// The boundary surface of a tet mesh (examples/render/boundary_faces.h): outward orientation on
// one tet, a closed consistently oriented surface enclosing the volume of a box of tets, and the
// errors for meshes it cannot handle.
#include <doctest/doctest.h>

#include <array>
#include <map>
#include <stdexcept>
#include <utility>

#include "examples/cfd/tet_mesh.h"
#include "examples/render/boundary_faces.h"

using namespace dualjit;
using namespace dualjit::render;

namespace {

using V3 = std::array<double, 3>;

V3 at(const std::vector<double>& x, int32_t v) {
  return {x[v * 3], x[v * 3 + 1], x[v * 3 + 2]};
}
V3 sub(V3 a, V3 b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
V3 cross(V3 a, V3 b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(V3 a, V3 b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// Six times the volume a closed surface encloses: positive when its faces point outward.
double volume6(const std::vector<double>& x, const std::vector<int32_t>& faces) {
  double v = 0;
  for (size_t f = 0; f < faces.size(); f += 3)
    v += dot(at(x, faces[f]), cross(at(x, faces[f + 1]), at(x, faces[f + 2])));
  return v;
}

}  // namespace

TEST_SUITE("render") {
  TEST_CASE("boundary_faces: a single tet gives its 4 faces, normals pointing away from it") {
    const std::vector<double> x = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    const std::vector<int32_t> tet = {0, 1, 2, 3};
    const std::vector<int32_t> faces = boundary_faces(tet);
    REQUIRE(faces.size() == 12);
    const V3 centroid{0.25, 0.25, 0.25};
    for (size_t f = 0; f < faces.size(); f += 3) {
      CAPTURE(f / 3);
      const V3 a = at(x, faces[f]), b = at(x, faces[f + 1]), c = at(x, faces[f + 2]);
      const V3 n = cross(sub(b, a), sub(c, a));
      const V3 face_centre{(a[0] + b[0] + c[0]) / 3, (a[1] + b[1] + c[1]) / 3,
                           (a[2] + b[2] + c[2]) / 3};
      CHECK(dot(n, sub(face_centre, centroid)) > 0);
    }
    CHECK(volume6(x, faces) == doctest::Approx(1.0));
  }

  TEST_CASE("boundary_faces: a box of tets gives a closed, outward surface of its volume") {
    const cfd::TetMesh m = cfd::box_tet_mesh(3, 2, 2, 1.5, 1.0, 0.5);
    const std::vector<int32_t> faces = boundary_faces(m.tets);
    // Each side of 3x2, 3x2 and 2x2 cells, two triangles per cell, twice.
    CHECK(faces.size() / 3 == 2 * 2 * (3 * 2 + 3 * 2 + 2 * 2));
    // Closed and consistently oriented: every directed edge once, its reverse once.
    std::map<std::pair<int32_t, int32_t>, int> directed;
    for (size_t f = 0; f < faces.size(); f += 3)
      for (int k = 0; k < 3; ++k) ++directed[{faces[f + k], faces[f + (k + 1) % 3]}];
    int bad = 0;
    for (const auto& [edge, n] : directed)
      bad += n != 1 || directed.count({edge.second, edge.first}) != 1 ||
             directed.at({edge.second, edge.first}) != 1;
    CHECK(bad == 0);
    CHECK(volume6(m.xyz, faces) == doctest::Approx(6 * 1.5 * 1.0 * 0.5));
    // No interior node is used: only nodes on the box's sides.
    for (int32_t v : faces) {
      const V3 p = at(m.xyz, v);
      const bool on_side =
          p[0] == 0 || p[0] == 1.5 || p[1] == 0 || p[1] == 1.0 || p[2] == 0 || p[2] == 0.5;
      CHECK(on_side);
    }

    const mesh_energy::TriMesh s = boundary_surface(m.xyz, m.tets);
    CHECK(s.faces == faces);
    CHECK(s.x == m.xyz);
  }

  TEST_CASE("boundary_faces: rejects malformed, non-manifold and inconsistently oriented tets") {
    CHECK_THROWS_AS(boundary_faces({0, 1, 2}), std::invalid_argument);
    CHECK_THROWS_AS(boundary_faces({0, 1, 2, -1}), std::invalid_argument);
    CHECK_THROWS_AS(boundary_faces({0, 1, 2, 2}), std::invalid_argument);
    // Two tets on the same side of face (0, 1, 2): swapping two nodes of the second inverts it.
    CHECK_THROWS_WITH_AS(boundary_faces({0, 1, 2, 3, 0, 1, 2, 4}),
                         doctest::Contains("not consistently oriented"), std::invalid_argument);
    // Three tets around one face.
    CHECK_THROWS_WITH_AS(boundary_faces({0, 1, 2, 3, 0, 2, 1, 4, 0, 2, 1, 5}),
                         doctest::Contains("shared by 3"), std::invalid_argument);
    // Consistent neighbours across that face are fine: 6 boundary faces.
    CHECK(boundary_faces({0, 1, 2, 3, 0, 2, 1, 4}).size() == 18);
    CHECK_THROWS_AS(boundary_surface({0, 0, 0}, {0, 1, 2, 3}), std::invalid_argument);
  }
}
