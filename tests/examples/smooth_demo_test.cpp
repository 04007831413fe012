// The smoothing demo (examples/mesh_energy/smooth_demo.h) at a tiny size: gradient
// descent runs its steps with the energy never rising, Newton reaches the minimum in one step,
// the boundary stays exactly where it was (checked on the OBJ read back against the input), the
// interior moves, and the energy of the mesh read back is the reported one. A closed mesh has
// nothing to pin and shrinks; bad input is named. On a GPU, the CPU's descent step for step.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <set>
#include <string>

#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/smooth_demo.h"
#include "examples/mesh_energy/smoothing_energy.h"
#include "support/demo_files.h"
#include "support/gpu.h"

using namespace dualjit;
using namespace dualjit::mesh_energy;

namespace {

double sum_of_squared_edges(const TriMesh& m) {
  const std::vector<int32_t> e = mesh_edges(m);
  double s = 0;
  for (size_t k = 0; k < e.size(); k += 2)
    for (int c = 0; c < 3; ++c) s += std::pow(m.x[e[k] * 3 + c] - m.x[e[k + 1] * 3 + c], 2);
  return s;
}

}  // namespace

TEST_SUITE("smooth demo") {
  TEST_CASE("noisy disk from a file: boundary exactly fixed, energy down, Newton in one step") {
    test::TempDir tmp("dualjit_smooth_demo_");
    TriMesh noisy = disk(6);  // the last ring, vertices 91..126, is the boundary
    std::mt19937_64 rng(161);
    std::uniform_real_distribution<double> u(-1, 1);
    for (double& c : noisy.x) c += 0.05 * u(rng);
    const std::filesystem::path file = tmp.path() / "noisy.obj";
    write_obj(file, noisy);
    const TriMesh input = read_tri_mesh(file);  // the exact doubles the demo reads

    DemoOptions o;
    o.backend = assembly::Backend::Cpu;
    o.mesh = file;
    o.output_dir = tmp.path() / "out";
    o.max_iterations = 60;
    const DemoReport r = run_smooth_demo(o);
    CHECK(r.ok);
    CHECK(r.name == "smooth");
    CHECK(r.backend == "cpu");
    CHECK(test::fact(r, "vertices") == "127");
    CHECK(test::fact(r, "edges") == "342");
    CHECK(test::fact(r, "pinned boundary vertices") == "36");
    CHECK(test::fact(r, "max boundary displacement") == "0");
    CHECK(r.solve.solver == "gradient-descent");
    CHECK(r.solve.n_steps() == 60);
    CHECK(test::fact(r, "gradient descent steps") == "60");
    REQUIRE(r.solve.iterations.size() == 61);
    for (size_t k = 1; k < r.solve.iterations.size(); ++k) {
      CAPTURE(k);
      CHECK(r.solve.iterations[k].energy <= r.solve.iterations[k - 1].energy);
    }
    const double before = std::stod(test::fact(r, "energy before"));
    const double after = std::stod(test::fact(r, "energy after gradient descent"));
    const double minimum = std::stod(test::fact(r, "energy at Newton's minimum"));
    CHECK(before == doctest::Approx(sum_of_squared_edges(input)).epsilon(1e-10));
    CHECK(after < before);
    CHECK(minimum <= after);
    CHECK(test::fact(r, "Newton steps").find("1 (") == 0);

    REQUIRE(r.files.size() == 3);
    CHECK(r.files[0].filename() == "smooth.obj");
    CHECK(r.files[1].filename() == "smooth.png");
    CHECK(r.files[2].filename() == "convergence.png");
    CHECK(test::is_png(r.files[1]));
    CHECK(test::is_png(r.files[2]));
    const TriMesh back = read_tri_mesh(r.files[0]);
    REQUIRE(back.n_vertices() == input.n_vertices());
    CHECK(back.faces == input.faces);
    CHECK(sum_of_squared_edges(back) == doctest::Approx(after).epsilon(1e-10));
    // The solve's energy is the whole mesh's sum, the boundary's own edges included.
    CHECK(r.solve.iterations.front().energy == doctest::Approx(before).epsilon(1e-10));
    CHECK(r.solve.energy == doctest::Approx(after).epsilon(1e-10));
    double interior_moved = 0;
    for (int64_t v = 0; v < back.n_vertices(); ++v) {
      for (int c = 0; c < 3; ++c) {
        if (v >= 91) {
          CHECK(back.x[v * 3 + c] == input.x[v * 3 + c]);  // exactly
        } else {
          interior_moved =
              std::max(interior_moved, std::abs(back.x[v * 3 + c] - input.x[v * 3 + c]));
        }
      }
    }
    CHECK(interior_moved > 0.01);
  }

  TEST_CASE("built-in saddle; a closed mesh pins nothing and shrinks; bad input is named") {
    test::TempDir tmp("dualjit_smooth_demo_");
    DemoOptions o;
    o.backend = assembly::Backend::Cpu;
    o.size = 5;
    o.output_dir = tmp.path();
    const DemoReport saddle = run_smooth_demo(o);
    CHECK(saddle.ok);
    CHECK(test::fact(saddle, "mesh") == "noisy saddle(5)");
    CHECK(test::fact(saddle, "vertices") == "91");
    CHECK(test::fact(saddle, "pinned boundary vertices") == "30");
    CHECK(test::fact(saddle, "max boundary displacement") == "0");

    const std::filesystem::path ball = tmp.path() / "ball.obj";
    write_obj(ball, icosphere(1));
    o.mesh = ball;
    o.size = 0;
    o.max_iterations = 20;
    const DemoReport closed = run_smooth_demo(o);
    CHECK(closed.ok);
    CHECK(test::fact(closed, "pinned boundary vertices") == "0");
    CHECK(test::fact(closed, "Newton").find("not run") == 0);
    CHECK(closed.solve.energy < closed.solve.iterations.front().energy);

    o.mesh = tmp.path() / "missing.off";
    CHECK_THROWS_WITH_AS(run_smooth_demo(o), doctest::Contains("missing.off"), MeshReadError);
    o.mesh.clear();
    o.size = -3;
    CHECK_THROWS_AS(run_smooth_demo(o), std::invalid_argument);
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("built-in saddle on the GPU: the CPU's descent, boundary fixed, Newton in one step" *
            test::needs_gpu()) {
    test::TempDir tmp("dualjit_smooth_demo_gpu_");
    DemoOptions o;
    o.size = 12;
    o.max_iterations = 40;
    const auto [cpu, gpu] = test::run_on_cpu_and_gpu(run_smooth_demo, o, tmp.path());
    CHECK(gpu.ok);
    CHECK(gpu.backend == "cuda");
    CHECK(test::fact(gpu, "max boundary displacement") == "0");
    CHECK(test::fact(gpu, "Newton steps").find("1 (") == 0);
    // The same steps: the line search takes the same trial steps while the energies agree to
    // round-off (the sums' order differs between the backends).
    REQUIRE(gpu.solve.iterations.size() == cpu.solve.iterations.size());
    for (size_t k = 0; k < gpu.solve.iterations.size(); ++k) {
      CAPTURE(k);
      CHECK(gpu.solve.iterations[k].energy ==
            doctest::Approx(cpu.solve.iterations[k].energy).epsilon(1e-11));
    }
  }
}
