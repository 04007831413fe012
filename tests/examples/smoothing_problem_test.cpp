// The Laplacian smoothing problem (examples/mesh_energy/smoothing.h) assembled on the CPU: the
// gradient equals 2 (valence x_i - sum of the neighbours) and the energy the sum of squared edge
// lengths; the boundary reported and pinned as the solvers' DOFs; with the pinned rows made
// identity the Hessian is positive definite and one Newton step flattens a disk whose boundary
// is flat, the boundary unmoved; bad input names the mesh and face.
#include <doctest/doctest.h>

#include <Eigen/SparseCholesky>
#include <random>
#include <set>

#include "backends/assembly/assembler.h"
#include "backends/mesh/export.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/smoothing.h"
#include "support/assembly.h"

using namespace dualjit;
using namespace dualjit::mesh_energy;

namespace {

// Each vertex's neighbours, from the faces.
std::vector<std::set<int32_t>> neighbours(const TriMesh& m) {
  std::vector<std::set<int32_t>> nb(m.n_vertices());
  for (int64_t f = 0; f < m.n_faces(); ++f)
    for (int c = 0; c < 3; ++c)
      for (int d = 0; d < 3; ++d)
        if (c != d) nb[m.faces[f * 3 + c]].insert(m.faces[f * 3 + d]);
  return nb;
}

// 2 (valence x_v - sum of the neighbours), for all of `x` (n_vertices x 3).
std::vector<double> umbrella_gradient(const TriMesh& m, const std::vector<double>& x) {
  const auto nb = neighbours(m);
  std::vector<double> g(x.size(), 0.0);
  for (int64_t v = 0; v < m.n_vertices(); ++v)
    for (int c = 0; c < 3; ++c) {
      double s = double(nb[v].size()) * x[v * 3 + c];
      for (int32_t n : nb[v]) s -= x[int64_t(n) * 3 + c];
      g[v * 3 + c] = 2 * s;
    }
  return g;
}

}  // namespace

TEST_SUITE("smoothing problem") {
  TEST_CASE("gradient is 2 (valence x_i - sum of neighbours); the pinned boundary is DOFs") {
    TriMesh m = disk(4);
    std::mt19937_64 rng(81);
    std::uniform_real_distribution<double> u(-1, 1);
    for (double& c : m.x) c += 0.05 * u(rng);
    // disk(4): the centre and rings 1..4; ring 4 (vertices 37..60) is the boundary.
    std::vector<int32_t> ring4;
    for (int32_t v = 37; v <= 60; ++v) ring4.push_back(v);

    Smoothing all = smoothing_problem(m, "disk(4)");
    CHECK(all.boundary == ring4);
    CHECK(all.pinned.empty());
    CHECK(all.problem.n_nodes() == m.n_vertices());
    CHECK(all.problem.block_size() == 3);
    CHECK(all.problem.n_terms() == 1);
    CHECK(all.x == m.x);
    std::vector<double> x(m.x.size());
    for (double& c : x) c = u(rng);
    assembly::Assembler a(all.problem, test::on_cpu());
    const std::vector<double> g = a.gradient(x), want = umbrella_gradient(m, x);
    for (size_t i = 0; i < x.size(); ++i) CHECK(g[i] == doctest::Approx(want[i]).epsilon(1e-12));
    // The energy is the sum of squared edge lengths, each edge once.
    double e = 0;
    const auto nb = neighbours(m);
    for (int32_t v = 0; v < m.n_vertices(); ++v)
      for (int32_t n : nb[v])
        if (n > v)
          for (int c = 0; c < 3; ++c) e += std::pow(x[v * 3 + c] - x[n * 3 + c], 2);
    CHECK(a.energy(x) == doctest::Approx(e).epsilon(1e-12));

    // Pinning the boundary changes only the solvers' DOFs: the same single term.
    Smoothing pinned = smoothing_problem(m, "disk(4)", true);
    CHECK(pinned.boundary == ring4);
    CHECK(pinned.problem.n_nodes() == m.n_vertices());
    CHECK(pinned.problem.n_terms() == 1);
    REQUIRE(pinned.pinned.n_dofs() == m.n_vertices() * 3);
    CHECK(pinned.pinned.count() == 24 * 3);
    for (int64_t d = 0; d < pinned.pinned.n_dofs(); ++d)
      CHECK(pinned.pinned.is_pinned(d) == (d >= 37 * 3));
  }

  TEST_CASE("pinned boundary: positive definite Hessian, one Newton step to the harmonic disk") {
    TriMesh m = disk(5);
    std::mt19937_64 rng(82);
    std::uniform_real_distribution<double> u(-1, 1);
    Smoothing s = smoothing_problem(m, "disk(5)", true);
    REQUIRE(s.boundary.size() == 30);
    // Interior vertices lifted off the plane: the boundary stays at z = 0.
    std::vector<double> x = s.x;
    for (size_t i = 0; i < x.size(); ++i)
      if (!s.pinned.is_pinned(int64_t(i))) x[i] += (i % 3 == 2 ? 0.3 : 0.02) * u(rng);
    assembly::Assembler a(s.problem, test::on_cpu());
    std::vector<double> g = a.gradient(x);
    mesh::BlockCsr<double> hb = a.hessian(x);
    // Diagonal blocks 2 valence I, boundary vertices included.
    const auto nb = neighbours(m);
    {
      const Eigen::SparseMatrix<double> h = mesh::to_eigen(hb);
      for (int64_t v = 0; v < m.n_vertices(); ++v)
        CHECK(h.coeff(v * 3 + 1, v * 3 + 1) == doctest::Approx(2.0 * nb[v].size()));
    }
    // The solvers' treatment of the pinned boundary: identity rows and columns, zero gradient.
    s.pinned.apply_identity(hb);
    s.pinned.zero(g);
    const Eigen::SparseMatrix<double> h = mesh::to_eigen(hb);
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(h);
    REQUIRE(ldlt.info() == Eigen::Success);
    CHECK(ldlt.vectorD().minCoeff() > 0);
    const Eigen::VectorXd dx = ldlt.solve(-Eigen::Map<const Eigen::VectorXd>(g.data(), g.size()));
    std::vector<double> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] + dx[i];
    for (int32_t v : s.boundary)
      for (int c = 0; c < 3; ++c) CHECK(y[v * 3 + c] == x[v * 3 + c]);
    std::vector<double> gy = a.gradient(y);
    s.pinned.zero(gy);
    double gmax = 0, zmax = 0;
    for (double c : gy) gmax = std::max(gmax, std::abs(c));
    for (size_t i = 2; i < y.size(); i += 3) zmax = std::max(zmax, std::abs(y[i]));
    CHECK(gmax < 1e-10);
    CHECK(zmax < 1e-12);  // harmonic with a flat boundary: flat
  }

  TEST_CASE("closed meshes have no boundary; bad input names the mesh and the face") {
    const TriMesh ico = icosphere(1);
    Smoothing s = smoothing_problem(ico, "icosphere(1)", true);
    CHECK(s.boundary.empty());
    CHECK(s.pinned.empty());
    CHECK(s.problem.n_terms() == 1);
    TriMesh bad = disk(2);
    bad.faces[5 * 3 + 2] = -4;
    CHECK_THROWS_WITH_AS(smoothing_problem(bad, "bad disk"),
                         doctest::Contains("bad disk: face 5: vertex -4 out of range"),
                         MeshReadError);
    TriMesh tri;
    tri.x = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    tri.faces = {0, 1, 2};
    CHECK_THROWS_WITH_AS(
        smoothing_problem(tri, "one triangle", true),
        doctest::Contains("one triangle: smoothing: every vertex is on the pinned"), MeshReadError);
    TriMesh points;
    points.x = {0, 0, 0, 1, 0, 0};
    CHECK_THROWS_WITH_AS(smoothing_problem(points, "two points"),
                         doctest::Contains("two points: smoothing: the mesh has no faces"),
                         MeshReadError);
  }
}
