// The elastic box builder (examples/mesh_energy/neo_hookean_problem.h) and the Neo-Hookean
// cantilever demo (neohookean_demo.h) on the CPU at a tiny size: lumped masses that weigh the
// box, pinned faces, errors named; the demo converges quadratically with the energy falling at
// every iteration, the clamped end keeps its exact positions, the free end goes down, no tet
// inverts, and the files exist: the OBJ is the deformed boundary surface, the pictures PNGs.
#include <doctest/doctest.h>

#include <numeric>
#include <stdexcept>
#include <string>

#include "examples/cfd/tet_mesh.h"
#include "examples/mesh_energy/neo_hookean_problem.h"
#include "examples/mesh_energy/neohookean_demo.h"
#include "examples/mesh_energy/tri_mesh.h"
#include "examples/render/boundary_faces.h"
#include "support/demo_files.h"

using namespace dualjit;
using namespace dualjit::mesh_energy;

TEST_SUITE("neohookean demo") {
  TEST_CASE("elastic_box: masses weigh the box, the chosen faces are pinned, bad input named") {
    ElasticBox b;
    b.nx = 4;
    b.ny = 2;
    b.nz = 3;
    b.lx = 2;
    b.ly = 1;
    b.lz = 0.5;
    b.density = 800;
    b.pinned_faces = {BoxFace::XMin, BoxFace::ZMax};
    const ElasticBody body = elastic_box(b);
    CHECK(body.mesh.n_tets() == 4 * 2 * 3 * 6);
    CHECK(body.problem.n_nodes() == body.mesh.n_nodes);
    CHECK(body.problem.n_terms() == 2);
    const double mass = std::accumulate(body.masses.begin(), body.masses.end(), 0.0);
    CHECK(mass == doctest::Approx(800 * 2 * 1 * 0.5).epsilon(1e-12));
    // x = 0: 3 x 4 nodes; z = 0.5: 5 x 3 nodes; 3 on both.
    CHECK(body.pinned_vertices.size() == 12 + 15 - 3);
    CHECK(body.pinned.count() == 3 * 24);
    for (int32_t v : body.pinned_vertices) {
      const double* p = &body.mesh.xyz[v * 3];
      CHECK((p[0] == 0 || p[2] == 0.5));
    }
    // E = 1e6, nu = 0.3 by default: mu_lin = E / 2.6, lambda_lin = E nu / (1.3 x 0.4).
    const double mu = 1e6 / 2.6, lambda = 1e6 * 0.3 / (1.3 * 0.4);
    CHECK(body.lame.mu == doctest::Approx(4.0 / 3.0 * mu));
    CHECK(body.lame.lambda == doctest::Approx(lambda + 5.0 / 6.0 * mu));

    ElasticBox bad = b;
    bad.density = 0;
    CHECK_THROWS_WITH_AS(elastic_box(bad), doctest::Contains("elastic_box: density"),
                         std::invalid_argument);
    bad = b;
    bad.ny = 0;
    CHECK_THROWS_WITH_AS(elastic_box(bad), doctest::Contains("cell counts must be positive"),
                         std::invalid_argument);
    bad = b;
    bad.poisson = 0.5;
    CHECK_THROWS_WITH_AS(elastic_box(bad), doctest::Contains("lame_parameters"),
                         std::invalid_argument);
  }

  TEST_CASE("a 8 x 2 x 2 cantilever on the CPU: quadratic convergence, clamped, tip down") {
    test::TempDir tmp("dualjit_neohookean_demo_");
    DemoOptions o;
    o.backend = assembly::Backend::Cpu;
    o.size = 2;
    o.output_dir = tmp.path();
    const DemoReport r = run_neohookean_demo(o);
    const std::string log = solvers::format_log(r.solve);
    INFO(log);
    CHECK(r.name == "neohookean");
    CHECK(r.backend == "cpu");
    CHECK(r.ok);
    CHECK(r.solve.converged());
    const auto& it = r.solve.iterations;
    for (size_t k = 0; k + 1 < it.size(); ++k) CHECK(it[k + 1].energy < it[k].energy);
    // Quadratic: near the solution |g_{k+1}| / |g_k|^2 stays small; under a linear rate rho it
    // would be rho / |g_k|, e.g. 0.03 for rho = 0.4 at |g| = 12 N.
    int quadratic_steps = 0;
    for (size_t k = 0; k + 1 < it.size(); ++k) {
      if (it[k].step == 1 && it[k].gradient_norm < 1e4) {
        CHECK(it[k + 1].gradient_norm / (it[k].gradient_norm * it[k].gradient_norm) < 1e-2);
        ++quadratic_steps;
      }
    }
    CHECK(quadratic_steps >= 2);

    const cfd::TetMesh rest = cfd::box_tet_mesh(8, 2, 2, 4, 1, 1);
    const std::vector<double>& x = r.solve.x;
    REQUIRE(x.size() == rest.xyz.size());
    int clamped = 0, tip = 0;
    for (int64_t v = 0; v < rest.n_nodes; ++v) {
      if (rest.xyz[v * 3] == 0) {
        for (int c = 0; c < 3; ++c) CHECK(x[v * 3 + c] == rest.xyz[v * 3 + c]);
        ++clamped;
      } else if (rest.xyz[v * 3] == 4) {
        CHECK(x[v * 3 + 2] < rest.xyz[v * 3 + 2] - 0.1);  // the free end sags
        ++tip;
      }
    }
    CHECK(clamped == 9);
    CHECK(tip == 9);
    CHECK(test::fact(r, "clamped vertices exactly fixed") == "yes");
    CHECK(std::stod(test::fact(r, "smallest volume ratio J")) > 0);
    CHECK(std::stod(test::fact(r, "tip deflection (m)")) > 0.1);

    REQUIRE(r.files.size() == 3);
    CHECK(r.files[0] == tmp.path() / "neohookean.obj");
    const TriMesh surface = read_obj(r.files[0]);
    CHECK(surface.faces == render::boundary_faces(rest.tets));
    REQUIRE(surface.x.size() == x.size());
    for (size_t i = 0; i < x.size(); ++i) CHECK(surface.x[i] == x[i]);
    CHECK(test::is_png(r.files[1]));
    CHECK(test::is_png(r.files[2]));
  }

  TEST_CASE("the neohookean demo refuses a size out of range and an input mesh") {
    DemoOptions o;
    o.backend = assembly::Backend::Cpu;
    for (int64_t size : {-1, 400}) {
      o.size = size;
      CHECK_THROWS_WITH_AS(run_neohookean_demo(o), doctest::Contains("must be in [1, 300]"),
                           std::invalid_argument);
    }
    o.size = 1;
    o.mesh = "beam.msh";
    CHECK_THROWS_WITH_AS(run_neohookean_demo(o), doctest::Contains("takes no input mesh"),
                         std::invalid_argument);
  }
}
