// Tests of the CFD example's mesh side: box meshes, median-dual edge data, node orderings and
// the Gmsh reader.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "examples/cfd/mesh.h"

namespace {

using namespace dualjit::cfd;

const std::filesystem::path kData = DUALJIT_TEST_DATA_DIR;

// Largest closure defect over the nodes, relative to the mean edge area magnitude:
// sum_e (+area if i == v0, -area if i == v1) + bnode_area[i] must vanish for every node.
double closure_defect(const EdgeMesh& em) {
  std::vector<double> sum = em.bnode_area;
  double mean = 0;
  for (int64_t e = 0; e < em.n_edges(); ++e) {
    const int32_t a = em.edges[2 * e], b = em.edges[2 * e + 1];
    double mag = 0;
    for (int d = 0; d < 3; ++d) {
      sum[3 * a + d] += em.area[3 * e + d];
      sum[3 * b + d] -= em.area[3 * e + d];
      mag += em.area[3 * e + d] * em.area[3 * e + d];
    }
    mean += std::sqrt(mag);
  }
  mean /= static_cast<double>(std::max<int64_t>(em.n_edges(), 1));
  double worst = 0;
  for (double s : sum) worst = std::max(worst, std::abs(s));
  return worst / mean;
}

double sum_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

bool is_bijection(const std::vector<int32_t>& p) {
  std::vector<char> seen(p.size(), 0);
  for (int32_t v : p) {
    if (v < 0 || static_cast<size_t>(v) >= p.size() || seen[v]) return false;
    seen[v] = 1;
  }
  return true;
}

// Box mesh with the interior nodes moved randomly by up to `jitter` cell sizes, so that the
// dual faces are no longer axis aligned.
TetMesh jittered_box(int n, double jitter, uint64_t seed) {
  TetMesh m = box_tet_mesh(n, n, n, 1.0, 2.0, 0.5);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-jitter, jitter);
  const double h[3] = {1.0 / n, 2.0 / n, 0.5 / n};
  const double l[3] = {1.0, 2.0, 0.5};
  for (int64_t i = 0; i < m.n_nodes; ++i) {
    bool interior = true;
    for (int d = 0; d < 3; ++d) {
      const double x = m.xyz[3 * i + d];
      interior = interior && x > 0.5 * h[d] && x < l[d] - 0.5 * h[d];
    }
    if (interior)
      for (int d = 0; d < 3; ++d) m.xyz[3 * i + d] += u(rng) * h[d];
  }
  return m;
}

}  // namespace

TEST_CASE("box_tet_mesh: counts, natural node order, positive equal volumes") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 6; ++trial) {
    const int nx = 1 + static_cast<int>(rng() % 5), ny = 1 + static_cast<int>(rng() % 5),
              nz = 1 + static_cast<int>(rng() % 5);
    const double lx = 0.5 + (rng() % 100) / 50.0, ly = 0.5 + (rng() % 100) / 50.0,
                 lz = 0.5 + (rng() % 100) / 50.0;
    CAPTURE(nx);
    CAPTURE(ny);
    CAPTURE(nz);
    const TetMesh m = box_tet_mesh(nx, ny, nz, lx, ly, lz);
    CHECK(m.n_nodes == int64_t(nx + 1) * (ny + 1) * (nz + 1));
    CHECK(m.n_tets() == int64_t(6) * nx * ny * nz);
    REQUIRE(m.xyz.size() == size_t(m.n_nodes) * 3);
    // x fastest: node (i, j, k) = i + (nx + 1) * (j + (ny + 1) * k).
    const int i = nx, j = ny / 2, k = nz;
    const int64_t node = i + int64_t(nx + 1) * (j + int64_t(ny + 1) * k);
    CHECK(m.xyz[3 * node + 0] == doctest::Approx(lx * i / nx));
    CHECK(m.xyz[3 * node + 1] == doctest::Approx(ly * j / ny));
    CHECK(m.xyz[3 * node + 2] == doctest::Approx(lz * k / nz));
    // The Kuhn tets of a cell all have a sixth of its volume.
    const double cell = lx * ly * lz / (nx * ny * nz);
    for (int64_t t = 0; t < m.n_tets(); ++t)
      REQUIRE(tet_signed_volume(m, t) == doctest::Approx(cell / 6).epsilon(1e-12));
    CHECK(total_volume(m) == doctest::Approx(lx * ly * lz).epsilon(1e-12));
  }
  CHECK_THROWS_AS(box_tet_mesh(0, 1, 1), std::invalid_argument);
  CHECK_THROWS_AS(box_tet_mesh(1, 1, 1, 1, -1, 1), std::invalid_argument);
}

TEST_CASE("build_edge_mesh: box edges match brute force and the Euler characteristic") {
  const int nx = 3, ny = 4, nz = 2;
  const TetMesh m = box_tet_mesh(nx, ny, nz);
  const EdgeMesh em = build_edge_mesh(m);

  std::set<std::pair<int32_t, int32_t>> brute;
  std::set<std::array<int32_t, 3>> all_faces;
  for (int64_t t = 0; t < m.n_tets(); ++t) {
    const int32_t* v = &m.tets[4 * t];
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) brute.insert({std::min(v[a], v[b]), std::max(v[a], v[b])});
    for (int skip = 0; skip < 4; ++skip) {
      std::array<int32_t, 3> f{};
      int k = 0;
      for (int a = 0; a < 4; ++a)
        if (a != skip) f[k++] = v[a];
      std::sort(f.begin(), f.end());
      all_faces.insert(f);
    }
  }
  REQUIRE(em.n_edges() == static_cast<int64_t>(brute.size()));
  int64_t e = 0;
  for (const auto& [a, b] : brute) {  // same set, and stored sorted by (v0, v1)
    REQUIRE(em.edges[2 * e] == a);
    REQUIRE(em.edges[2 * e + 1] == b);
    ++e;
  }
  // Edges of the Kuhn box: axis edges, one diagonal per square face, one per cell.
  const int64_t px = nx + 1, py = ny + 1, pz = nz + 1;
  const int64_t formula = nx * py * pz + px * ny * pz + px * py * nz + nx * ny * pz + nx * py * nz +
                          px * ny * nz + int64_t(nx) * ny * nz;
  CHECK(em.n_edges() == formula);
  // Each boundary square is two triangles; a conforming mesh has no other unshared faces.
  CHECK(em.n_bfaces() == 4 * (nx * ny + ny * nz + nx * nz));
  CHECK(static_cast<int64_t>(all_faces.size()) == (4 * m.n_tets() + em.n_bfaces()) / 2);
  // A ball: V - E + F - T = 1.
  CHECK(m.n_nodes - em.n_edges() + static_cast<int64_t>(all_faces.size()) - m.n_tets() == 1);
}

TEST_CASE("build_edge_mesh: median-dual closure, volumes and boundary areas") {
  for (double jitter : {0.0, 0.2}) {
    CAPTURE(jitter);
    const TetMesh m = jittered_box(6, jitter, 11);
    for (int64_t t = 0; t < m.n_tets(); ++t) REQUIRE(tet_signed_volume(m, t) > 0);
    const EdgeMesh em = build_edge_mesh(m);
    CHECK(closure_defect(em) < 1e-12);
    CHECK(sum_of(em.node_volume) == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(*std::min_element(em.node_volume.begin(), em.node_volume.end()) > 0);

    // Boundary faces point away from the (convex) box's centre; their areas tile its surface.
    double surface = 0;
    for (int64_t f = 0; f < em.n_bfaces(); ++f) {
      const int32_t* v = &em.bfaces[3 * f];
      double p[3][3], c[3] = {0, 0, 0};
      for (int k = 0; k < 3; ++k)
        for (int d = 0; d < 3; ++d) p[k][d] = m.xyz[3 * v[k] + d], c[d] += p[k][d] / 3;
      const double u[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
      const double w[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
      const double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
                           u[0] * w[1] - u[1] * w[0]};
      REQUIRE(n[0] * (c[0] - 0.5) + n[1] * (c[1] - 1.0) + n[2] * (c[2] - 0.25) > 0);
      surface += 0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    }
    CHECK(surface == doctest::Approx(2 * (1.0 * 2.0 + 2.0 * 0.5 + 1.0 * 0.5)).epsilon(1e-12));
    // Projected onto +x, the boundary dual areas add up to the y-z face.
    double x_plus = 0;
    for (int64_t i = 0; i < em.n_nodes; ++i) x_plus += std::max(em.bnode_area[3 * i], 0.0);
    CHECK(x_plus == doctest::Approx(2.0 * 0.5).epsilon(1e-12));

    // Edge-based Green-Gauss is exact for linear fields at interior nodes of the median dual
    // (it equals the linear-FEM gradient): sum_j area_ij (u_i + u_j) / 2 = V_i grad u.
    const double g[3] = {0.3, -1.7, 2.2};
    auto u_at = [&](int32_t i) {
      return g[0] * m.xyz[3 * i] + g[1] * m.xyz[3 * i + 1] + g[2] * m.xyz[3 * i + 2];
    };
    std::vector<double> grad(3 * m.n_nodes, 0.0);
    for (int64_t e = 0; e < em.n_edges(); ++e) {
      const int32_t a = em.edges[2 * e], b = em.edges[2 * e + 1];
      const double avg = 0.5 * (u_at(a) + u_at(b));
      for (int d = 0; d < 3; ++d) {
        grad[3 * a + d] += em.area[3 * e + d] * avg;
        grad[3 * b + d] -= em.area[3 * e + d] * avg;
      }
    }
    int interior = 0;
    for (int64_t i = 0; i < em.n_nodes; ++i) {
      if (em.bnode_area[3 * i] != 0 || em.bnode_area[3 * i + 1] != 0 ||
          em.bnode_area[3 * i + 2] != 0)
        continue;
      ++interior;
      for (int d = 0; d < 3; ++d)
        REQUIRE(grad[3 * i + d] / em.node_volume[i] == doctest::Approx(g[d]).epsilon(1e-10));
    }
    CHECK(interior == 5 * 5 * 5);
  }
}

TEST_CASE("build_edge_mesh: rejects inverted and out-of-range tets") {
  TetMesh m = box_tet_mesh(2, 2, 2);
  std::swap(m.tets[4 * 5 + 2], m.tets[4 * 5 + 3]);
  CHECK_THROWS_WITH_AS(build_edge_mesh(m), doctest::Contains("tet 5"), std::invalid_argument);
  m = box_tet_mesh(2, 2, 2);
  m.tets[4 * 3 + 1] = static_cast<int32_t>(m.n_nodes);
  CHECK_THROWS_WITH_AS(build_edge_mesh(m), doctest::Contains("tet 3"), std::invalid_argument);
}

TEST_CASE("random_permutation and inverse_permutation") {
  for (int64_t n : {0, 1, 2, 17, 1000}) {
    const auto p = random_permutation(n, 42);
    CHECK(p.size() == static_cast<size_t>(n));
    CHECK(is_bijection(p));
    CHECK(random_permutation(n, 42) == p);
    const auto inv = inverse_permutation(p);
    for (int64_t i = 0; i < n; ++i) REQUIRE(inv[p[i]] == i);
  }
  CHECK(random_permutation(1000, 1) != random_permutation(1000, 2));
  // Uniformity, roughly: over many draws, each value lands in position 0 about equally often.
  std::vector<int> hits(5, 0);
  for (uint64_t s = 0; s < 5000; ++s) ++hits[random_permutation(5, s)[0]];
  for (int h : hits) CHECK(std::abs(h - 1000) < 150);
  CHECK_THROWS_AS(inverse_permutation({0, 0, 1}), std::invalid_argument);
  CHECK_THROWS_AS(inverse_permutation({0, 3, 1}), std::invalid_argument);
}

TEST_CASE("renumber_nodes keeps the dual geometry: closure, same edges and areas") {
  const TetMesh original = jittered_box(5, 0.2, 3);
  const EdgeMesh before = build_edge_mesh(original);
  for (uint64_t seed : {1u, 2u, 3u}) {
    TetMesh m = original;
    const auto new_of_old = random_permutation(m.n_nodes, seed);
    renumber_nodes(m, new_of_old);
    const EdgeMesh after = build_edge_mesh(m);
    CHECK(closure_defect(after) < 1e-12);
    REQUIRE(after.n_edges() == before.n_edges());
    CHECK(after.n_bfaces() == before.n_bfaces());
    // Each old edge (a, b) is new edge (p[a], p[b]), its area negated if the order flipped.
    for (int64_t e = 0; e < before.n_edges(); ++e) {
      const int32_t a = new_of_old[before.edges[2 * e]], b = new_of_old[before.edges[2 * e + 1]];
      const int32_t v0 = std::min(a, b), v1 = std::max(a, b);
      int64_t lo = 0, hi = after.n_edges();
      while (lo < hi) {
        const int64_t mid = (lo + hi) / 2;
        if (std::make_pair(after.edges[2 * mid], after.edges[2 * mid + 1]) < std::make_pair(v0, v1))
          lo = mid + 1;
        else
          hi = mid;
      }
      REQUIRE(lo < after.n_edges());
      REQUIRE(after.edges[2 * lo] == v0);
      REQUIRE(after.edges[2 * lo + 1] == v1);
      const double sign = a < b ? 1.0 : -1.0;
      for (int d = 0; d < 3; ++d)
        REQUIRE(after.area[3 * lo + d] ==
                doctest::Approx(sign * before.area[3 * e + d]).epsilon(1e-12).scale(1e-3));
    }
    for (int64_t i = 0; i < m.n_nodes; ++i) {
      REQUIRE(after.node_volume[new_of_old[i]] ==
              doctest::Approx(before.node_volume[i]).epsilon(1e-12));
      for (int d = 0; d < 3; ++d)
        REQUIRE(after.bnode_area[3 * new_of_old[i] + d] ==
                doctest::Approx(before.bnode_area[3 * i + d]).epsilon(1e-12).scale(1e-3));
    }
  }
  TetMesh m = original;
  std::vector<int32_t> bad(m.n_nodes, 0);
  CHECK_THROWS_AS(renumber_nodes(m, bad), std::invalid_argument);
  CHECK(m.xyz == original.xyz);  // untouched on error
}

TEST_CASE("reverse_cuthill_mckee reduces bandwidth") {
  const TetMesh box = box_tet_mesh(20, 20, 20);
  TetMesh shuffled = box;
  renumber_nodes(shuffled, random_permutation(shuffled.n_nodes, 99));
  const EdgeMesh random_edges = build_edge_mesh(shuffled);
  const int64_t bw_natural = edge_bandwidth(build_edge_mesh(box).edges);
  const int64_t bw_random = edge_bandwidth(random_edges.edges);

  const auto rcm = reverse_cuthill_mckee(shuffled.n_nodes, random_edges.edges);
  REQUIRE(rcm.size() == static_cast<size_t>(shuffled.n_nodes));
  CHECK(is_bijection(rcm));
  CHECK(rcm == reverse_cuthill_mckee(shuffled.n_nodes, random_edges.edges));  // deterministic
  TetMesh ordered = shuffled;
  renumber_nodes(ordered, rcm);
  const EdgeMesh rcm_edges = build_edge_mesh(ordered);
  const int64_t bw_rcm = edge_bandwidth(rcm_edges.edges);
  MESSAGE("20^3 box bandwidth: natural " << bw_natural << ", random " << bw_random << ", RCM "
                                         << bw_rcm);
  CHECK(bw_random > 9000);  // 9261 nodes, shuffled
  CHECK(bw_rcm * 10 < bw_random);
  CHECK(bw_rcm <= 2 * bw_natural);
  CHECK(closure_defect(rcm_edges) < 1e-12);
}

TEST_CASE("reverse_cuthill_mckee: paths, several components and isolated nodes") {
  // A shuffled path is put back in a line: bandwidth 1.
  const int n = 50;
  const auto p = random_permutation(n, 5);
  std::vector<int32_t> edges;
  for (int i = 0; i + 1 < n; ++i) edges.insert(edges.end(), {p[i + 1], p[i]});
  const auto rcm = reverse_cuthill_mckee(n, edges);
  CHECK(is_bijection(rcm));
  std::vector<int32_t> renumbered;
  for (int32_t v : edges) renumbered.push_back(rcm[v]);
  CHECK(edge_bandwidth(edges) > 1);
  CHECK(edge_bandwidth(renumbered) == 1);

  // Two disjoint shuffled boxes and two isolated nodes (+ duplicate edges and a self-loop).
  const EdgeMesh a = build_edge_mesh(box_tet_mesh(4, 4, 4));
  const int64_t na = a.n_nodes, total = 2 * na + 2;
  const auto shuffle = random_permutation(total, 8);
  std::vector<int32_t> two;
  for (int copy = 0; copy < 2; ++copy)
    for (int32_t v : a.edges) two.push_back(shuffle[v + copy * na]);
  two.insert(two.end(), {two[0], two[1], two[2], two[2]});
  const auto order = reverse_cuthill_mckee(total, two);
  CHECK(is_bijection(order));
  std::vector<int32_t> two_renumbered;
  for (int32_t v : two) two_renumbered.push_back(order[v]);
  CHECK(edge_bandwidth(two_renumbered) <= 2 * edge_bandwidth(a.edges));
  CHECK_THROWS_AS(reverse_cuthill_mckee(3, {0, 3}), std::invalid_argument);
  CHECK(edge_bandwidth({}) == 0);
}

TEST_CASE("read_gmsh: the cube, MSH 4.1 and 2.2") {
  const TetMesh m = read_gmsh(kData / "cube.msh");
  CHECK(m.n_nodes == 9);
  CHECK(m.n_tets() == 12);
  for (int64_t t = 0; t < m.n_tets(); ++t) CHECK(tet_signed_volume(m, t) > 0);
  CHECK(total_volume(m) == doctest::Approx(1.0).epsilon(1e-14));
  const EdgeMesh em = build_edge_mesh(m);
  CHECK(closure_defect(em) < 1e-12);
  CHECK(sum_of(em.node_volume) == doctest::Approx(1.0).epsilon(1e-14));
  CHECK(em.n_bfaces() == 12);
  CHECK(em.n_edges() == 12 + 6 + 8);  // cube edges, face diagonals, spokes to the centre
  // The centre node (tag 27, last in the file) is interior; its volume is a quarter of all.
  CHECK(m.xyz[3 * 8] == 0.5);
  CHECK(em.node_volume[8] == doctest::Approx(0.25));

  const TetMesh legacy = read_gmsh(kData / "cube_v22.msh");
  CHECK(legacy.xyz == m.xyz);
  CHECK(legacy.tets == m.tets);
}

TEST_CASE("read_gmsh: round trip of a shuffled box with sparse tags and mixed orientation") {
  const TetMesh box = jittered_box(3, 0.2, 21);
  std::mt19937_64 rng(1234);
  // Sparse, shuffled node tags, nodes split over two entity blocks, half the tets reversed.
  std::vector<int64_t> tag(box.n_nodes);
  for (int64_t i = 0; i < box.n_nodes; ++i) tag[i] = 1000 + 7 * i;
  std::shuffle(tag.begin(), tag.end(), rng);
  const auto path = std::filesystem::temp_directory_path() /
                    ("dualjit_cfd_roundtrip_" + std::to_string(rng()) + ".msh");
  {
    std::ofstream f(path);
    f.precision(17);
    f << "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n2 " << box.n_nodes << " 1000 "
      << 1000 + 7 * box.n_nodes << "\n";
    const int64_t half = box.n_nodes / 2;
    for (auto [begin, end, parametric] :
         {std::tuple<int64_t, int64_t, int>{0, half, 0}, {half, box.n_nodes, 1}}) {
      f << (parametric ? 2 : 3) << " 1 " << parametric << " " << end - begin << "\n";
      for (int64_t i = begin; i < end; ++i) f << tag[i] << "\n";
      for (int64_t i = begin; i < end; ++i) {
        f << box.xyz[3 * i] << " " << box.xyz[3 * i + 1] << " " << box.xyz[3 * i + 2];
        if (parametric) f << " 0.25 0.75";  // u, v of a surface node
        f << "\n";
      }
    }
    f << "$EndNodes\n$Elements\n2 " << box.n_tets() + 1 << " 1 " << box.n_tets() + 1 << "\n";
    f << "2 1 2 1\n1 " << tag[0] << " " << tag[1] << " " << tag[2] << "\n";
    f << "3 1 4 " << box.n_tets() << "\n";
    for (int64_t t = 0; t < box.n_tets(); ++t) {
      const int32_t* v = &box.tets[4 * t];
      const bool flip = rng() % 2;
      f << t + 2 << " " << tag[v[0]] << " " << tag[v[1]] << " " << tag[flip ? v[3] : v[2]] << " "
        << tag[flip ? v[2] : v[3]] << "\n";
    }
    f << "$EndElements\n";
  }
  const TetMesh m = read_gmsh(path);
  std::filesystem::remove(path);
  REQUIRE(m.n_nodes == box.n_nodes);
  REQUIRE(m.n_tets() == box.n_tets());
  CHECK(m.xyz == box.xyz);  // every node is used, so file order is kept
  for (int64_t t = 0; t < m.n_tets(); ++t) {
    REQUIRE(tet_signed_volume(m, t) == doctest::Approx(tet_signed_volume(box, t)));
    std::array<int32_t, 4> a{}, b{};
    std::copy_n(&m.tets[4 * t], 4, a.begin());
    std::copy_n(&box.tets[4 * t], 4, b.begin());
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    REQUIRE(a == b);
  }
  CHECK(closure_defect(build_edge_mesh(m)) < 1e-12);
}

TEST_CASE("read_gmsh: malformed files name the file and line") {
  struct Bad {
    const char* file;
    int64_t line;
    const char* says;
  };
  const Bad cases[] = {
      {"bad_version.msh", 2, "version 3.0"},
      {"bad_binary.msh", 2, "binary"},
      {"bad_truncated_nodes.msh", 16, "truncated"},
      {"bad_truncated_eof.msh", 21, "end of file"},
      {"bad_unknown_node.msh", 22, "unknown node tag 42"},
      {"bad_nonnumeric.msh", 14, "'1.0x'"},
      {"bad_degenerate.msh", 22, "element 2 is a degenerate"},
      {"bad_duplicate_tag.msh", 15, "duplicate node tag 3"},
  };
  for (const Bad& bad : cases) {
    CAPTURE(bad.file);
    const auto path = kData / bad.file;
    try {
      read_gmsh(path);
      FAIL("no MeshReadError");
    } catch (const MeshReadError& e) {
      const std::string what = e.what();
      CAPTURE(what);
      CHECK(e.line() == bad.line);
      CHECK(e.file() == path);
      CHECK(what.find(path.string() + ":" + std::to_string(bad.line) + ":") == 0);
      CHECK(what.find(bad.says) != std::string::npos);
    }
  }
  try {
    read_gmsh(kData / "no_such_mesh.msh");
    FAIL("no MeshReadError");
  } catch (const MeshReadError& e) {
    CHECK(e.line() == 0);
    CHECK(std::string(e.what()).find("no_such_mesh.msh") != std::string::npos);
  }
}

TEST_CASE("build_edge_mesh timing on a 40^3 box (information only)") {
  const TetMesh m = box_tet_mesh(40, 40, 40);
  const auto start = std::chrono::steady_clock::now();
  const EdgeMesh em = build_edge_mesh(m);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("build_edge_mesh, 40^3 box (" << m.n_nodes << " nodes, " << em.n_edges()
                                        << " edges): " << ms << " ms");
  CHECK(em.n_edges() > 0);
}
