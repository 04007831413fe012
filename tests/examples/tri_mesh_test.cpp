// Triangle meshes for the energies (examples/mesh_energy/tri_mesh.h, mesh_generators.h): the
// readers on small files and on every kind of bad input (each error names the file, the line
// and the face), OBJ round trips with UVs, manifold and orientation checks, topology of the
// generators, midpoint subdivision.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/tri_mesh.h"

using namespace dualjit;
using namespace dualjit::mesh_energy;

namespace {

const std::filesystem::path kData = DUALJIT_TEST_DATA_DIR;

// A file in the temporary directory holding `text`, removed at the end of the scope.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_(std::filesystem::temp_directory_path() /
              ("dualjit_tri_" + std::to_string(std::random_device{}()) + "_" + name)) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Six times the signed volume enclosed by a closed mesh: positive when faces point outward.
double signed_volume6(const TriMesh& m) {
  double v = 0;
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    const double* a = &m.x[m.faces[f * 3] * 3];
    const double* b = &m.x[m.faces[f * 3 + 1] * 3];
    const double* c = &m.x[m.faces[f * 3 + 2] * 3];
    v += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
         a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return v;
}

// The z component of the face normal's sum (twice the signed area projected on x-y).
double area2_z(const TriMesh& m) {
  double s = 0;
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    const double* a = &m.x[m.faces[f * 3] * 3];
    const double* b = &m.x[m.faces[f * 3 + 1] * 3];
    const double* c = &m.x[m.faces[f * 3 + 2] * 3];
    s += (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  }
  return s;
}

}  // namespace

TEST_CASE("read_off: comments, per-face colours, a closed outward surface") {
  const TriMesh m = read_tri_mesh(kData / "tetra.off");
  CHECK(m.n_vertices() == 4);
  CHECK(m.n_faces() == 4);
  CHECK(m.uv.empty());
  CHECK_NOTHROW(check_manifold(m, "tetra.off"));
  const Topology t = topology(m);
  CHECK(t.edges == 6);
  CHECK(t.boundary_edges == 0);
  CHECK(t.euler_characteristic == 2);
  CHECK(signed_volume6(m) == doctest::Approx(1.0));
}

TEST_CASE("read_obj: v/vt/vn references, negative indices, per-vertex UVs; round trip") {
  const TriMesh m = read_tri_mesh(kData / "square_uv.obj");
  CHECK(m.n_vertices() == 4);
  CHECK(m.faces == std::vector<int32_t>{0, 1, 2, 0, 2, 3});
  REQUIRE(m.uv.size() == 8);
  CHECK(m.uv[4] == 1.0);  // vertex 2 has vt 3 = (1, 1)
  CHECK(m.uv[5] == 1.0);
  const Topology t = topology(m);
  CHECK(t.boundary_loops == 1);
  CHECK(t.euler_characteristic == 1);
  // Written and read back: the same doubles, faces and UVs.
  std::mt19937_64 rng(5);
  TriMesh d = subdivide(disk(3));
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& x : d.x) x += 1e-3 * u(rng);
  d.uv.resize(d.n_vertices() * 2);
  for (double& x : d.uv) x = u(rng);
  TempFile out("roundtrip.obj", "");
  write_obj(out.path(), d);
  const TriMesh back = read_obj(out.path());
  CHECK(back.x == d.x);
  CHECK(back.faces == d.faces);
  CHECK(back.uv == d.uv);
}

TEST_CASE("mesh readers: bad input names the file, the line and the face") {
  struct Case {
    const char* name;
    const char* text;
    const char* message;
    int64_t line;
  };
  const Case cases[] = {
      {"missing_header.off", "4 1 0\n", "expected the OFF header", 1},
      {"truncated.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n", "truncated: expected a vertex coordinate", 4},
      {"truncated_faces.off", "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",
       "truncated: expected a face", 6},
      {"range.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n",
       "face 0: vertex 3 out of range (3 vertices)", 6},
      {"nan.off", "OFF\n3 1 0\n0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n", "non-finite coordinate 'nan'", 4},
      {"word.off", "OFF\n3 1 0\n0 0 0\n1 x 0\n0 1 0\n3 0 1 2\n", "'x' is not a number", 4},
      {"quad.off", "OFF\n4 1 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n",
       "face 0 has 4 vertices; only triangles are read", 7},
      {"repeat_vertex.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 1\n",
       "face 0 is degenerate: a vertex repeats", 6},
      {"zero_area.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n2 0 0\n3 0 1 2\n",
       "face 0 is degenerate: zero area", 6},
      {"repeated.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\nf 2 3 1\n",
       "face 1 repeats face 0 (the same vertices)", 6},
      {"range.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\n", "face 0: vertex 3 out of range (2 so far)", 3},
      {"zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "face 0: vertex 0 out of range", 4},
      {"uv_range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n",
       "face 0: texture coordinate 2 out of range (1 so far)", 5},
      {"short.obj", "v 0 0\n", "a vertex needs 3 coordinates", 1},
      {"inf.obj", "v 0 0 inf\n", "non-finite coordinate 'inf'", 1},
      {"polygon.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n",
       "face 0 has 4 vertices; only triangles are read", 5},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    TempFile f(c.name, c.text);
    try {
      read_tri_mesh(f.path());
      FAIL("no error");
    } catch (const MeshReadError& e) {
      CHECK(std::string(e.what()).find(c.message) != std::string::npos);
      CHECK(std::string(e.what()).find(f.path().string() + ":" + std::to_string(c.line) + ": ") ==
            0);
      CHECK(e.line() == c.line);
    }
  }
  CHECK_THROWS_WITH_AS(read_tri_mesh(kData / "no_such_mesh.off"),
                       doctest::Contains("cannot open: no such file"), MeshReadError);
  CHECK_THROWS_WITH_AS(read_tri_mesh(kData / "cube.msh"), doctest::Contains("unknown mesh format"),
                       MeshReadError);
}

TEST_CASE("check_manifold: an edge of three faces, and inconsistent orientation, are named") {
  TriMesh fan;
  fan.x = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1};
  fan.faces = {0, 1, 2, 1, 0, 3, 0, 1, 4};  // edge (0, 1) in three faces
  CHECK_THROWS_WITH_AS(check_manifold(fan, "fan"),
                       doctest::Contains("face 2: non-manifold edge (0, 1) (more than two faces)"),
                       MeshReadError);
  TriMesh flipped;
  flipped.x = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  flipped.faces = {0, 1, 2, 0, 3, 2};  // the second runs (0 .. 2) ... the same way
  CHECK_THROWS_WITH_AS(check_manifold(flipped, "flipped"),
                       doctest::Contains("runs the same way as in face 0"), MeshReadError);
}

TEST_CASE("generators: counts, topology and orientation") {
  for (int level : {0, 1, 3}) {
    CAPTURE(level);
    const TriMesh s = icosphere(level);
    const int64_t p = int64_t(1) << (2 * level);
    CHECK(s.n_vertices() == 10 * p + 2);
    CHECK(s.n_faces() == 20 * p);
    CHECK_NOTHROW(check_manifold(s, "icosphere"));
    CHECK(topology(s).euler_characteristic == 2);
    CHECK(topology(s).boundary_edges == 0);
    CHECK(signed_volume6(s) > 0);  // outward
    for (int64_t v = 0; v < s.n_vertices(); ++v) {
      const double* x = &s.x[v * 3];
      CHECK(std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) == doctest::Approx(1.0));
    }
  }
  for (int rings : {1, 2, 7}) {
    CAPTURE(rings);
    const TriMesh d = disk(rings);
    CHECK(d.n_vertices() == 1 + 3 * rings * (rings + 1));
    CHECK(d.n_faces() == 6 * rings * rings);
    CHECK_NOTHROW(check_manifold(d, "disk"));
    const Topology t = topology(d);
    CHECK(t.euler_characteristic == 1);
    CHECK(t.boundary_loops == 1);
    CHECK(t.boundary_edges == 6 * rings);
    // Counter-clockwise from +z: twice the area, between the inscribed hexagon's and the
    // circle's (rings of vertices on circles).
    CHECK(area2_z(d) >= 3 * std::sqrt(3.0) - 1e-12);
    CHECK(area2_z(d) < 2 * std::acos(-1.0));
  }
  const ClothGrid g = cloth_grid(5);
  CHECK(g.mesh.n_vertices() == 25);
  CHECK(g.springs.size() / 2 == size_t(2 * 5 * 4 + 4 * 4));
  CHECK(g.rest[0] == doctest::Approx(0.25));                   // (v, v + 1)
  CHECK(g.rest[2] == doctest::Approx(0.25 * std::sqrt(2.0)));  // (v, v + n + 1)
  CHECK_NOTHROW(check_manifold(g.mesh, "cloth"));
  CHECK(topology(g.mesh).euler_characteristic == 1);
  CHECK_THROWS_AS(cloth_grid(1), std::invalid_argument);
  CHECK_THROWS_AS(disk(0), std::invalid_argument);
  CHECK_THROWS_AS(icosphere(13), std::invalid_argument);
}

TEST_CASE("subdivide: V + E vertices, 4 F faces, originals kept, topology and UVs carried") {
  TriMesh d = disk(4);
  d.uv.resize(d.n_vertices() * 2);
  for (int64_t v = 0; v < d.n_vertices(); ++v) {
    d.uv[v * 2] = d.x[v * 3];
    d.uv[v * 2 + 1] = d.x[v * 3 + 1];
  }
  const Topology t = topology(d);
  const TriMesh s = subdivide(d);
  CHECK(s.n_vertices() == d.n_vertices() + t.edges);
  CHECK(s.n_faces() == 4 * d.n_faces());
  CHECK(std::equal(d.x.begin(), d.x.end(), s.x.begin()));
  CHECK_NOTHROW(check_manifold(s, "subdivided"));
  CHECK(topology(s).euler_characteristic == 1);
  CHECK(area2_z(s) == doctest::Approx(area2_z(d)));
  for (int64_t v = 0; v < s.n_vertices(); ++v) {  // planar UVs stay the positions
    CHECK(s.uv[v * 2] == doctest::Approx(s.x[v * 3]));
    CHECK(s.uv[v * 2 + 1] == doctest::Approx(s.x[v * 3 + 1]));
  }
  CHECK(subdivide_to(d, 1000).n_vertices() >= 1000);
  CHECK(subdivide_to(d, 1).n_vertices() == d.n_vertices());
}
