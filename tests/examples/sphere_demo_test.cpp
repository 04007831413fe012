// The spherical map demo (examples/mesh_energy/sphere_demo.h) on the CPU at a tiny size: a stop
// criterion reached, no inverted triangle, the energy never rising within a round (across the
// retraction between rounds only by round-off), the L-BFGS iterations counted, and the files
// exist and read back (points on the unit sphere, the input's connectivity, still injective).
// The injective step bound: just below it no face inverts, just above one does; on the GPU the
// host's bound. A mesh whose
// Gauss map folds starts from the conformal flow instead.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <string>

#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/sphere_demo.h"
#include "solvers/device_vector_space.h"
#include "solvers/solver_error.h"
#include "support/demo_files.h"
#include "support/gpu.h"
#include "support/nvrtc_module.h"

using namespace dualjit;
using namespace dualjit::mesh_energy;

namespace {

// The icosphere with its top cap (z > 0.3) reflected through the plane z = 0.3: a dimple whose
// Gauss map folds.
TriMesh dented_sphere(int level) {
  TriMesh m = icosphere(level);
  for (int64_t v = 0; v < m.n_vertices(); ++v)
    if (m.x[v * 3 + 2] > 0.3) m.x[v * 3 + 2] = 0.6 - m.x[v * 3 + 2];
  return m;
}

std::vector<double> axpy(const std::vector<double>& x, double t, const std::vector<double>& d) {
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] + t * d[i];
  return out;
}

// injective_step_bound on host vectors, at x along d.
double max_injective_step(const SphericalMap& map, const std::vector<double>& x,
                          const std::vector<double>& d) {
  const solvers::VectorSpace& s = solvers::host_space();
  return injective_step_bound(s, map)(s.from_host(x), s.from_host(d));
}

}  // namespace

TEST_SUITE("sphere demo") {
  TEST_CASE("built-in mesh on the CPU: injective, energy down, files that read back") {
    test::TempDir tmp("dualjit_sphere_demo_");
    DemoOptions o;
    o.backend = assembly::Backend::Cpu;
    o.size = 2;  // icosphere level: 162 vertices
    o.output_dir = tmp.path() / "out";
    const DemoReport r = run_sphere_demo(o);
    CHECK(r.ok);
    CHECK(r.name == "sphere");
    CHECK(r.backend == "cpu");
    CHECK(test::fact(r, "mesh") == "lumpy ellipsoid(2)");
    CHECK(test::fact(r, "vertices") == "162");
    CHECK(test::fact(r, "faces") == "320");
    CHECK(test::fact(r, "start") == "Gauss map");
    CHECK(test::fact(r, "inverted triangles") == "0");
    const std::string stop = test::fact(r, "stop");
    CHECK((stop.find("gradient fell") == 0 || stop.find("energy stopped decreasing") == 0));
    CHECK(std::stod(test::fact(r, "energy")) < std::stod(test::fact(r, "energy at the start")));
    CHECK(std::stoi(test::fact(r, "rounds")) >= 1);

    // One history over the rounds: iterations renumbered, energies non-increasing (by round-off
    // at most where a round's end is rebuilt as the next one's start), steps as counted.
    REQUIRE(r.solve.iterations.size() >= 2);
    CHECK(r.solve.solver == "lbfgs");
    CHECK(std::stoi(test::fact(r, "L-BFGS iterations")) == r.solve.n_steps());
    CHECK(r.solve.energy == r.solve.iterations.back().energy);
    for (size_t k = 1; k < r.solve.iterations.size(); ++k) {
      CAPTURE(k);
      CHECK(r.solve.iterations[k].iteration == int(k));
      CHECK(r.solve.iterations[k].energy <= r.solve.iterations[k - 1].energy * (1 + 1e-12));
    }

    REQUIRE(r.files.size() == 3);
    CHECK(r.files[0].filename() == "sphere.obj");
    CHECK(r.files[1].filename() == "sphere.png");
    CHECK(r.files[2].filename() == "convergence.png");
    CHECK(test::is_png(r.files[1]));
    CHECK(test::is_png(r.files[2]));
    const TriMesh back = read_tri_mesh(r.files[0]);
    CHECK(back.faces == icosphere(2).faces);
    REQUIRE(back.n_vertices() == 162);
    CHECK(back.x == r.solve.x);
    double off_sphere = 0;
    for (int64_t v = 0; v < back.n_vertices(); ++v)
      off_sphere =
          std::max(off_sphere,
                   std::abs(std::hypot(back.x[v * 3], back.x[v * 3 + 1], back.x[v * 3 + 2]) - 1));
    CHECK(off_sphere < 1e-14);
    CHECK(count_inverted(back.faces, back.x) == 0);
  }

  TEST_CASE("injective step bound: just below it no face inverts, just above one does") {
    const SphericalMap map(icosphere(2), "icosphere(2)");
    const int64_t n = map.mesh().n_vertices() * 2;
    std::mt19937_64 rng(151);
    std::normal_distribution<double> g;
    for (int trial = 0; trial < 6; ++trial) {
      CAPTURE(trial);
      std::vector<double> x(n), d(n);
      for (double& c : x) c = 0.02 * g(rng);
      for (double& c : d) c = (trial % 2 ? 0.05 : 1.0) * g(rng);
      REQUIRE(count_inverted(map.mesh().faces, map.retracted(x)) == 0);
      const double alpha = max_injective_step(map, x, d);
      REQUIRE(std::isfinite(alpha));
      REQUIRE(alpha > 0);
      CHECK(count_inverted(map.mesh().faces, map.retracted(axpy(x, alpha * (1 - 1e-6), d))) == 0);
      CHECK(count_inverted(map.mesh().faces, map.retracted(axpy(x, alpha * (1 + 1e-6), d))) >= 1);
      // Twice the direction, half the step.
      CHECK(max_injective_step(map, x, axpy(d, 1.0, d)) ==
            doctest::Approx(alpha / 2).epsilon(1e-9));
    }
    // Moving no vertex never inverts; an offset that has inverted a face admits no step.
    const std::vector<double> zero(n, 0.0);
    CHECK(max_injective_step(map, zero, zero) == std::numeric_limits<double>::infinity());
    std::vector<double> bad(n, 0.0), d(n, 1.0);
    const int32_t corner = map.mesh().faces[2];
    bad[corner * 2] = 40;  // far past its neighbours
    REQUIRE(count_inverted(map.mesh().faces, map.retracted(bad)) > 0);
    CHECK_THROWS_WITH_AS(max_injective_step(map, bad, d),
                         doctest::Contains("step bound 'injective': element"),
                         solvers::SolverError);
    CHECK_THROWS_AS(max_injective_step(map, zero, std::vector<double>(3)), solvers::SolverError);
  }

  TEST_CASE("injective step bound: the device kernel compiles under NVRTC without a GPU") {
    const SphericalMap map(icosphere(1), "icosphere(1)");
    test::check_module_compiles("injective",
                                solvers::element_step_bound_source(
                                    injective_step_bound(solvers::host_space(), map).function()),
                                {solvers::kElementStepBoundEntry},
                                solvers::element_step_bound_options());
  }

  TEST_CASE("a mesh whose Gauss map folds starts from the conformal flow; bad input is named") {
    test::TempDir tmp("dualjit_sphere_demo_");
    const std::filesystem::path file = tmp.path() / "dented.off";
    {
      const TriMesh m = dented_sphere(2);
      std::ofstream out(file);
      out << "OFF\n" << m.n_vertices() << " " << m.n_faces() << " 0\n";
      out.precision(17);
      for (int64_t v = 0; v < m.n_vertices(); ++v)
        out << m.x[v * 3] << " " << m.x[v * 3 + 1] << " " << m.x[v * 3 + 2] << "\n";
      for (int64_t f = 0; f < m.n_faces(); ++f)
        out << "3 " << m.faces[f * 3] << " " << m.faces[f * 3 + 1] << " " << m.faces[f * 3 + 2]
            << "\n";
    }
    DemoOptions o;
    o.backend = assembly::Backend::Cpu;
    o.mesh = file;
    o.output_dir = tmp.path();
    const DemoReport r = run_sphere_demo(o);
    CHECK(r.ok);
    CHECK(test::fact(r, "mesh") == file.string());
    CHECK(test::fact(r, "start").find("conformal flow") != std::string::npos);
    CHECK(test::fact(r, "inverted triangles") == "0");

    const std::filesystem::path open_mesh = tmp.path() / "disk.obj";
    write_obj(open_mesh, disk(3));
    o.mesh = open_mesh;
    CHECK_THROWS_WITH_AS(run_sphere_demo(o), doctest::Contains("disk.obj: not a closed surface"),
                         MeshReadError);
    o.mesh = tmp.path() / "missing.obj";
    CHECK_THROWS_WITH_AS(run_sphere_demo(o), doctest::Contains("missing.obj"), MeshReadError);
    o.mesh.clear();
    o.size = -1;
    CHECK_THROWS_AS(run_sphere_demo(o), std::invalid_argument);
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("injective step bound: the GPU's equals the host's" * test::needs_gpu()) {
    const SphericalMap map(icosphere(4), "icosphere(4)");
    const int64_t n = map.mesh().n_vertices() * 2;
    const solvers::DeviceSpace gpu;
    const solvers::VectorSpace& cpu = solvers::host_space();
    const solvers::ElementStepBound on_gpu = injective_step_bound(gpu, map);
    const solvers::ElementStepBound on_cpu = injective_step_bound(cpu, map);
    std::mt19937_64 rng(3);
    std::normal_distribution<double> g;
    for (int trial = 0; trial < 8; ++trial) {
      CAPTURE(trial);
      std::vector<double> x(n), d(n);
      for (double& c : x) c = 0.002 * g(rng);
      for (double& c : d) c = (trial % 2 ? 0.01 : 0.5) * g(rng);
      const double host = on_cpu(cpu.from_host(x), cpu.from_host(d));
      REQUIRE(std::isfinite(host));
      // The same operations, each rounded on its own (--fmad=false): the same double.
      CHECK(on_gpu(gpu.from_host(x), gpu.from_host(d)) == host);
    }
  }
}
