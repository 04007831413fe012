// The cloth demo (examples/mesh_energy/cloth_demo.h) on the CPU at a tiny size: the drape
// converges with the energy falling at every Newton iteration, the pinned corners keep their
// exact positions, the cloth hangs below them and comes to rest with small free forces, and the
// files exist: the OBJ reads back as the grid at the reported positions, the pictures are PNGs.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "examples/mesh_energy/cloth_demo.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/tri_mesh.h"
#include "support/demo_files.h"

using namespace dualjit;
using namespace dualjit::mesh_energy;

TEST_SUITE("cloth demo") {
  TEST_CASE("a 6 x 6 cloth on the CPU hangs from its two corners, at rest, files written") {
    test::TempDir tmp("dualjit_cloth_demo_");
    DemoOptions o;
    o.backend = assembly::Backend::Cpu;
    o.size = 6;
    o.output_dir = tmp.path() / "out";  // created by the demo
    const DemoReport r = run_cloth_demo(o);
    INFO(solvers::format_log(r.solve));
    CHECK(r.name == "cloth");
    CHECK(r.backend == "cpu");
    CHECK(r.ok);
    CHECK(r.solve.converged());
    CHECK(r.solve.n_steps() >= 1);
    for (size_t k = 0; k + 1 < r.solve.iterations.size(); ++k)
      CHECK(r.solve.iterations[k + 1].energy < r.solve.iterations[k].energy);

    // Corners 0 and n - 1 (the z = 0 edge) exactly where the grid has them; the centre and the
    // far edge hang below them.
    const int n = 6;
    const ClothGrid grid = cloth_grid(n);
    const std::vector<double>& x = r.solve.x;
    REQUIRE(x.size() == grid.mesh.x.size());
    for (int v : {0, n - 1})
      for (int c = 0; c < 3; ++c) CHECK(x[v * 3 + c] == grid.mesh.x[v * 3 + c]);
    const int centre = (n / 2) * n + n / 2;
    CHECK(x[centre * 3 + 1] < -0.25);
    CHECK(x[(n * n - 1) * 3 + 1] < -0.9);  // the far corner: about a cloth's length down
    CHECK(test::fact(r, "pinned corners exactly fixed") == "yes");
    CHECK(std::stod(test::fact(r, "max |free force| at rest (N)")) <= 1e-5);
    CHECK(std::stod(test::fact(r, "largest move in the last step (m)")) < 1e-7);
    CHECK(std::stod(test::fact(r, "sag of the centre below the pins (m)")) ==
          doctest::Approx(-x[centre * 3 + 1]).epsilon(1e-3));

    REQUIRE(r.files.size() == 3);
    CHECK(r.files[0] == o.output_dir / "cloth.obj");
    const TriMesh back = read_obj(r.files[0]);
    CHECK(back.faces == grid.mesh.faces);
    REQUIRE(back.x.size() == x.size());
    for (size_t i = 0; i < x.size(); ++i) CHECK(back.x[i] == x[i]);  // 17 digits round-trip
    CHECK(r.files[1] == o.output_dir / "cloth.png");
    CHECK(r.files[2] == o.output_dir / "convergence.png");
    CHECK(test::is_png(r.files[1]));
    CHECK(test::is_png(r.files[2]));
  }

  TEST_CASE("the cloth demo refuses a grid too small to have a centre, and an input mesh") {
    DemoOptions o;
    o.backend = assembly::Backend::Cpu;
    o.size = 2;
    CHECK_THROWS_WITH_AS(run_cloth_demo(o), doctest::Contains("grid side must be in [3"),
                         std::invalid_argument);
    o.size = 4;
    o.mesh = "bunny.off";
    CHECK_THROWS_WITH_AS(run_cloth_demo(o), doctest::Contains("takes no input mesh (bunny.off)"),
                         std::invalid_argument);
  }
}
