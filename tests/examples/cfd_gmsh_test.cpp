// Real geometry from Gmsh for the CFD example: the reader's tagged boundary
// (read_gmsh_tagged, examples/cfd/gmsh_reader.h) on hand-written files, boundary areas by
// physical group (tagged_boundary, boundary.h), and the meshes tools/make_cfd_meshes.sh writes
// from examples/cfd/geometry: a sphere in a box and the channel with a bump at three
// refinements. On those the uniform free stream is a steady state wherever the walls are
// tangent to it, and the subsonic flow over the sphere has an entropy error (zero for the exact
// solution) that falls under refinement. The generated meshes need gmsh: without it those tests
// fail and say how to install it.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "backends/assembly/assembler.h"
#include "examples/cfd/boundary.h"
#include "examples/cfd/flow_state.h"
#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_problem.h"
#include "examples/cfd/steady_euler.h"
#include "support/assembly.h"

using namespace dualjit;
using dualjit::test::on_cpu;

namespace {

constexpr int kB = 5;
const std::filesystem::path kData = DUALJIT_TEST_DATA_DIR;
const std::map<std::string, cfd::BoundaryKind> kFarfieldAndWall = {
    {"farfield", cfd::BoundaryKind::farfield}, {"wall", cfd::BoundaryKind::slip_wall}};
const std::map<std::string, cfd::BoundaryKind> kFarfieldOnly = {
    {"farfield", cfd::BoundaryKind::farfield}, {"wall", cfd::BoundaryKind::farfield}};

std::array<double, 3> point(const cfd::TetMesh& m, int32_t v) {
  return {m.xyz[3 * v], m.xyz[3 * v + 1], m.xyz[3 * v + 2]};
}

// Twice the area vector of a face, (b - a) x (c - a).
std::array<double, 3> face_normal(const cfd::TetMesh& m, const std::array<int32_t, 3>& f) {
  const auto a = point(m, f[0]), b = point(m, f[1]), c = point(m, f[2]);
  const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  return {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
}

double norm(const double* v) {
  return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

// The meshes of tools/make_cfd_meshes.sh (three refinements), written once per run into a
// temporary directory that is removed at exit; `error` says why there are none.
struct GeneratedMeshes {
  std::filesystem::path dir;
  std::string error;
  ~GeneratedMeshes() {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};

const GeneratedMeshes& generated_meshes() {
  static const GeneratedMeshes meshes = [] {
    GeneratedMeshes g;
    g.dir = std::filesystem::temp_directory_path() /
            ("dualjit_cfd_meshes_" + std::to_string(::getpid()));
    std::filesystem::create_directories(g.dir);
    const std::string script = std::string(DUALJIT_SOURCE_DIR) + "/tools/make_cfd_meshes.sh";
    const std::filesystem::path log = g.dir / "make_cfd_meshes.log";
    // --no-install: a test installs nothing; it fails and says how.
    const std::string command =
        "'" + script + "' --no-install '" + g.dir.string() + "' 3 > '" + log.string() + "' 2>&1";
    const int status = std::system(command.c_str());
    if (status != 0) {
      std::ifstream in(log);
      std::stringstream text;
      text << in.rdbuf();
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : status;
      g.error = script + " failed (exit " + std::to_string(code) + "):\n" + text.str() +
                "The Gmsh meshes need gmsh: install it with tools/install-test-deps.sh BUILD_DIR "
                "(Debian's gmsh) or apt-get install --no-install-recommends gmsh, or set GMSH "
                "to a gmsh executable.";
    }
    return g;
  }();
  return meshes;
}

cfd::GmshMesh generated(const std::string& name) {
  const GeneratedMeshes& g = generated_meshes();
  if (!g.error.empty()) FAIL(g.error);
  return cfd::read_gmsh_tagged(g.dir / name);
}

}  // namespace

TEST_CASE("read_gmsh_tagged: the cube's faces by physical group, MSH 4.1 and 2.2") {
  const cfd::GmshMesh g = cfd::read_gmsh_tagged(kData / "tagged_cube.msh");
  REQUIRE(g.groups == std::vector<std::string>{"farfield", "wall"});
  const cfd::TetMesh plain = cfd::read_gmsh(kData / "tagged_cube.msh");
  CHECK(g.mesh.xyz == plain.xyz);
  CHECK(g.mesh.tets == plain.tets);
  REQUIRE(g.boundary.size() == 12);
  int in_group[2] = {0, 0};
  for (const cfd::TaggedFace& f : g.boundary) {
    REQUIRE((f.group == 0 || f.group == 1));
    ++in_group[f.group];
    // Outward: the normal points away from the cube's centre.
    const auto n = face_normal(g.mesh, f.nodes);
    double outward = 0;
    for (int d = 0; d < 3; ++d) outward += n[d] * (point(g.mesh, f.nodes[0])[d] - 0.5);
    CHECK(outward > 0);
    // Far field on x = 0 and x = 1 (the surfaces of physical group 1), wall elsewhere.
    const double x = point(g.mesh, f.nodes[0])[0];
    bool on_x_plane = true;
    for (int32_t v : f.nodes) on_x_plane = on_x_plane && point(g.mesh, v)[0] == x;
    CHECK(on_x_plane == (f.group == 0));
  }
  CHECK(in_group[0] == 4);
  CHECK(in_group[1] == 8);
  for (size_t b = 1; b < g.boundary.size(); ++b) {
    auto a = g.boundary[b - 1].nodes, c = g.boundary[b].nodes;
    std::sort(a.begin(), a.end());
    std::sort(c.begin(), c.end());
    CHECK(a < c);  // once each, in order
  }

  // MSH 2.2: the group is the first element tag; a triangle repeated in its group and one in
  // no group change nothing.
  const cfd::GmshMesh legacy = cfd::read_gmsh_tagged(kData / "tagged_cube_v22.msh");
  CHECK(legacy.groups == g.groups);
  CHECK(legacy.mesh.xyz == g.mesh.xyz);
  CHECK(legacy.mesh.tets == g.mesh.tets);
  REQUIRE(legacy.boundary.size() == g.boundary.size());
  for (size_t b = 0; b < g.boundary.size(); ++b) {
    CHECK(legacy.boundary[b].nodes == g.boundary[b].nodes);
    CHECK(legacy.boundary[b].group == g.boundary[b].group);
  }

  // The untagged cube: its triangles are in no physical group.
  CHECK_THROWS_WITH_AS(cfd::read_gmsh_tagged(kData / "cube.msh"),
                       doctest::Contains("with no triangle in a physical group"),
                       cfd::MeshReadError);
}

TEST_CASE("read_gmsh_tagged: bad boundary tags name the file, line and element") {
  struct Bad {
    const char* file;
    int64_t line;
    const char* says;
  };
  const Bad cases[] = {
      {"bad_tag_unknown_node.msh", 81, "element 6 references unknown node tag 42"},
      {"bad_tag_interior.msh", 84,
       "element 8 (triangle, group \"wall\") is not a boundary face of the tetrahedra: two "
       "tetrahedra share it"},
      {"bad_tag_not_a_face.msh", 90,
       "element 12 (triangle, group \"wall\") is not a boundary "
       "face of the tetrahedra: no tetrahedron has this face"},
      {"bad_tag_untagged_face.msh", 105,
       "element 25 (tetrahedron) has a boundary face, node tags 5 6 8, with no triangle"},
      {"bad_tag_no_name.msh", 82, "element 7 (triangle) is in physical group 2, which has no"},
      {"bad_tag_name_quote.msh", 7, "unterminated physical name"},
      {"bad_tag_two_groups.msh", 76, "surface entity 1 is in 2 physical groups"},
      {"bad_tag_conflict_v22.msh", 50,
       "element 27 (triangle, group \"farfield\") tags a face that element 14 (line 37) tags as "
       "\"wall\""},
  };
  for (const Bad& bad : cases) {
    CAPTURE(bad.file);
    const auto path = kData / bad.file;
    try {
      cfd::read_gmsh_tagged(path);
      FAIL("no MeshReadError");
    } catch (const cfd::MeshReadError& e) {
      const std::string what = e.what();
      CAPTURE(what);
      CHECK(e.line() == bad.line);
      CHECK(e.file() == path);
      CHECK(what.find(path.string() + ":" + std::to_string(bad.line) + ":") == 0);
      CHECK(what.find(bad.says) != std::string::npos);
    }
  }
  // read_gmsh reads only the tets: the boundary's triangles are no concern of its.
  for (const char* file : {"bad_tag_interior.msh", "bad_tag_untagged_face.msh",
                           "bad_tag_two_groups.msh", "bad_tag_conflict_v22.msh"})
    CHECK(cfd::read_gmsh(kData / file).n_tets() == 12);
}

TEST_CASE("tagged_boundary: the areas of each kind by physical group") {
  const cfd::GmshMesh g = cfd::read_gmsh_tagged(kData / "tagged_cube.msh");
  const cfd::EdgeMesh em = cfd::build_edge_mesh(g.mesh);
  const cfd::BoundaryAreas tagged = cfd::tagged_boundary(em, g, kFarfieldAndWall);
  // The same split by geometry: far field on the planes x = 0 and x = 1.
  const cfd::BoundaryAreas by_position = cfd::classify_boundary(
      em, g.mesh, [](const std::array<double, 3>&, const std::array<double, 3>& area) {
        return std::abs(area[0]) > 0 ? cfd::BoundaryKind::farfield : cfd::BoundaryKind::slip_wall;
      });
  CHECK(tagged.farfield == by_position.farfield);
  CHECK(tagged.slip_wall == by_position.slip_wall);
  double far_x = 0;
  for (size_t i = 0; i < tagged.farfield.size(); i += 3) far_x += std::abs(tagged.farfield[i]);
  CHECK(far_x == doctest::Approx(2.0));  // two unit faces

  const cfd::BoundaryAreas all_far = cfd::tagged_boundary(em, g, kFarfieldOnly);
  CHECK(all_far.farfield == cfd::farfield_boundary(em).farfield);

  CHECK_THROWS_WITH_AS(cfd::tagged_boundary(em, g, {{"farfield", cfd::BoundaryKind::farfield}}),
                       doctest::Contains("no boundary kind for the group \"wall\""),
                       std::invalid_argument);
  const cfd::EdgeMesh other = cfd::build_edge_mesh(cfd::box_tet_mesh(2, 2, 2));
  CHECK_THROWS_AS(cfd::tagged_boundary(other, g, kFarfieldAndWall), std::invalid_argument);
}

TEST_CASE("Gmsh meshes: sphere and bump channel, their geometry and the free stream kept") {
  cfd::FreeStream fs;
  fs.mach = 0.5;
  fs.alpha_deg = 7;
  fs.beta_deg = 3;
  int64_t previous_nodes[2] = {0, 0};
  for (int level = 1; level <= 3; ++level)
    for (const std::string shape : {"sphere", "bump"}) {
      const std::string name = shape + "_" + std::to_string(level) + ".msh";
      CAPTURE(name);
      const cfd::GmshMesh g = generated(name);
      REQUIRE(g.groups == std::vector<std::string>{"farfield", "wall"});
      const cfd::EdgeMesh em = cfd::build_edge_mesh(g.mesh);
      const bool sphere = shape == "sphere";
      MESSAGE(name << ": " << g.mesh.n_nodes << " nodes, " << g.mesh.n_tets() << " tets, "
                   << em.n_bfaces() << " boundary faces");
      // Each refinement about 3.3 times the nodes; the coarsest small enough for quick tests.
      int64_t& before = previous_nodes[sphere ? 0 : 1];
      if (level == 1) CHECK(g.mesh.n_nodes < 4000);
      if (level > 1) CHECK(g.mesh.n_nodes > 2.5 * static_cast<double>(before));
      before = g.mesh.n_nodes;

      // The groups sit where the geometry puts them: the wall on the sphere (radius 0.5) or
      // the channel's walls, the far field on the box (|x|_inf = 5) or the channel's ends.
      double wall_area = 0, far_area = 0, wall_off = 0, far_off = 0;
      std::array<double, 3> wall_sum{};
      for (const cfd::TaggedFace& f : g.boundary) {
        const auto n = face_normal(g.mesh, f.nodes);
        const bool wall = f.group == 1;
        (wall ? wall_area : far_area) += norm(n.data()) / 2;
        for (int d = 0; d < 3 && wall; ++d) wall_sum[d] += n[d] / 2;
        for (int32_t v : f.nodes) {
          const auto x = point(g.mesh, v);
          if (sphere && wall) wall_off = std::max(wall_off, std::abs(norm(x.data()) - 0.5));
          if (sphere && !wall)
            far_off =
                std::max(far_off, 5 - std::max({std::abs(x[0]), std::abs(x[1]), std::abs(x[2])}));
          if (!sphere && !wall) far_off = std::max(far_off, std::min(x[0], std::abs(x[0] - 3)));
        }
      }
      CHECK(wall_off < 1e-9);
      CHECK(far_off < 1e-12);
      if (sphere) {
        // The inscribed polyhedron's area is a little below the sphere's, 4 pi r^2 = pi.
        CHECK(wall_area < std::numbers::pi);
        CHECK(wall_area > 0.97 * std::numbers::pi);
        CHECK(norm(wall_sum.data()) < 1e-12);  // a closed surface
        CHECK(far_area == doctest::Approx(600).epsilon(1e-12));
        CHECK(cfd::total_volume(g.mesh) ==
              doctest::Approx(1000 - std::numbers::pi / 6).epsilon(1e-5));
      } else {
        CHECK(far_area == doctest::Approx(1.0).epsilon(1e-12));  // inflow and outflow, 1 x 0.5
        // 1.5 less the bump, 0.5 x the integral of 0.1 sin^2 over [1, 2].
        CHECK(cfd::total_volume(g.mesh) == doctest::Approx(1.475).epsilon(1e-5));
      }

      // Far field everywhere: any uniform stream is a steady state, to round-off.
      assembly::Problem p = cfd::roe_problem(em, fs, cfd::tagged_boundary(em, g, kFarfieldOnly));
      assembly::Assembler a(p, on_cpu());
      const std::vector<double> r = a.residual(cfd::free_stream_state(em.n_nodes, fs));
      double worst = 0;
      for (double x : r) worst = std::max(worst, std::abs(x));
      MESSAGE("  free stream, far field everywhere: max |R| " << worst);
      CHECK(worst < 1e-13);
    }
}

TEST_CASE("Gmsh meshes: slip walls keep a stream along them, not one that meets them") {
  cfd::FreeStream along;
  along.mach = 0.5;
  along.alpha_deg = 0;
  // The channel: the stream along x is tangent to its flat walls, not to the bump, so the
  // residual vanishes except at the nodes whose wall area has an x component (the bump's).
  for (int level = 1; level <= 3; ++level) {
    CAPTURE(level);
    const cfd::GmshMesh g = generated("bump_" + std::to_string(level) + ".msh");
    const cfd::EdgeMesh em = cfd::build_edge_mesh(g.mesh);
    const cfd::BoundaryAreas b = cfd::tagged_boundary(em, g, kFarfieldAndWall);
    assembly::Problem p = cfd::roe_problem(em, along, b);
    REQUIRE(p.n_terms() == 3);
    assembly::Assembler a(p, on_cpu());
    const std::vector<double> r = a.residual(cfd::free_stream_state(em.n_nodes, along));
    double flat = 0, bump = 0;
    int64_t bump_nodes = 0, astray = 0;
    for (int64_t i = 0; i < em.n_nodes; ++i) {
      const bool on_bump = std::abs(b.slip_wall[3 * i]) > 1e-12 * norm(&b.slip_wall[3 * i]);
      if (on_bump) {
        ++bump_nodes;
        const double* x = &g.mesh.xyz[3 * i];
        astray += x[0] < 0.9 || x[0] > 2.1 || x[2] > 0.101;
      }
      double& worst = on_bump ? bump : flat;
      for (int k = 0; k < kB; ++k) worst = std::max(worst, std::abs(r[i * kB + k]));
    }
    MESSAGE("bump_" << level << ": max |R| " << flat << " off the bump, " << bump << " on its "
                    << bump_nodes << " nodes");
    CHECK(bump_nodes > 10);
    CHECK(astray == 0);  // only the floor's nodes on or next to the bump
    CHECK(flat < 1e-13);
    CHECK(bump > 1e-5);
  }
  // The sphere: a uniform stream crosses its wall, which a slip wall does not allow.
  const cfd::GmshMesh g = generated("sphere_1.msh");
  const cfd::EdgeMesh em = cfd::build_edge_mesh(g.mesh);
  assembly::Problem p = cfd::roe_problem(em, along, cfd::tagged_boundary(em, g, kFarfieldAndWall));
  assembly::Assembler a(p, on_cpu());
  const std::vector<double> r = a.residual(cfd::free_stream_state(em.n_nodes, along));
  double worst = 0;
  for (double x : r) worst = std::max(worst, std::abs(x));
  MESSAGE("sphere_1 with a slip wall: max |R| " << worst);
  CHECK(worst > 1e-3);
}

// The sphere at Mach 0.3 with a slip wall, on the CPU. The exact (potential) flow has constant
// entropy and no drag (d'Alembert); first-order upwinding makes entropy at the wall, which the
// wake carries away, and a drag, and a low-Mach Roe scheme overshoots the stagnation pressure
// on coarse meshes (its pressure errors scale with M, not M^2). All three fall with h.
// Measured with Debian's gmsh 4.8 (1672, 5439, 19302 nodes): 8, 9, 10 steps; entropy error
// 1.15e-3, 1.02e-3, 8.5e-4; drag coefficient 2.14, 1.61, 1.14; stagnation overshoot
// (p_max - p0) / (p0 - p_inf) 1.21, 1.03, 0.71. Gmsh 4.15's meshes give the same within 10%.
TEST_CASE("Gmsh sphere at Mach 0.3: converged, stagnation at the front, entropy error falls") {
  cfd::FreeStream fs;
  fs.mach = 0.3;
  fs.alpha_deg = 0;
  const double g1 = fs.gamma - 1, p_inf = 1 / fs.gamma;
  // Isentropic stagnation pressure, and the dynamic pressure (rho 1, speed M) times the
  // sphere's frontal area.
  const double p0 = std::pow(1 + 0.5 * g1 * fs.mach * fs.mach, fs.gamma / g1) * p_inf;
  const double dynamic = 0.5 * fs.mach * fs.mach, frontal = std::numbers::pi * 0.25;
  double previous_entropy = 0, previous_drag = 0, previous_overshoot = 0;
  for (int level = 1; level <= 3; ++level) {
    CAPTURE(level);
    const cfd::GmshMesh g = generated("sphere_" + std::to_string(level) + ".msh");
    const cfd::EdgeMesh em = cfd::build_edge_mesh(g.mesh);
    const cfd::BoundaryAreas b = cfd::tagged_boundary(em, g, kFarfieldAndWall);
    assembly::Problem p = cfd::roe_problem(em, fs, b);
    assembly::Assembler a(p, on_cpu());
    std::vector<double> q = cfd::free_stream_state(em.n_nodes, fs);
    const cfd::SteadyResult r = cfd::solve_steady(a, em, fs.gamma, q);
    MESSAGE("sphere_" << level << " (" << em.n_nodes << " nodes): " << r.history.size()
                      << " steps to |R|/|R0| " << r.final_residual / r.initial_residual);
    REQUIRE(r.converged);
    CHECK(r.history.size() <= 30);

    // Volume-weighted RMS of s / s_inf - 1 over the domain.
    const double entropy = cfd::entropy_error(em, q, fs.gamma);
    // On the wall: the pressure force (the fluid's outward area is the sphere's inward one),
    // the highest pressure and where it is, the lowest near the equator.
    double force[3] = {0, 0, 0}, p_max = 0, equator_min = p0;
    std::array<double, 3> at{};
    for (int64_t i = 0; i < em.n_nodes; ++i) {
      const double* S = &b.slip_wall[3 * i];
      if (norm(S) == 0) continue;
      const double pr = cfd::pressure(&q[i * kB], fs.gamma);
      for (int d = 0; d < 3; ++d) force[d] += pr * S[d];
      if (pr > p_max) p_max = pr, at = point(g.mesh, static_cast<int32_t>(i));
      if (std::abs(g.mesh.xyz[3 * i]) < 0.05) equator_min = std::min(equator_min, pr);
    }
    const double drag = force[0] / (dynamic * frontal);
    const double overshoot = (p_max - p0) / (p0 - p_inf);
    MESSAGE("  entropy error " << entropy << ", drag coefficient " << drag << ", side forces "
                               << force[1] / (dynamic * frontal) << " "
                               << force[2] / (dynamic * frontal) << ", stagnation overshoot "
                               << overshoot << " at (" << at[0] << ", " << at[1] << ", " << at[2]
                               << "), equator Cp " << (equator_min - p_inf) / dynamic);
    CHECK(entropy > 1e-4);  // a real flow, not the free stream
    CHECK(drag > 0);
    // Symmetric about the stream's axis: no side force.
    CHECK(std::abs(force[1]) < 0.02 * force[0]);
    CHECK(std::abs(force[2]) < 0.02 * force[0]);
    // Stagnation at the front (within 37 degrees of (-0.5, 0, 0) on the coarsest mesh, whose
    // wall edges are 0.1 long) at about the isentropic stagnation pressure; the stream speeds
    // up around the sides.
    CHECK(at[0] < -0.4);
    CHECK(p_max > p0 - 0.1 * (p0 - p_inf));
    CHECK(overshoot < 1.5);
    CHECK((equator_min - p_inf) / dynamic < -0.5);
    if (level > 1) {
      CHECK(entropy < 0.95 * previous_entropy);
      CHECK(drag < 0.9 * previous_drag);
      CHECK(overshoot < previous_overshoot);
    }
    previous_entropy = entropy, previous_drag = drag, previous_overshoot = overshoot;
  }
}
