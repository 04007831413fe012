// The parameterization demo (examples/mesh_energy/param_demo.h) on the CPU at a tiny size: it
// converges, ends with no flipped triangle and a lower distortion than Tutte's start, the energy
// never rises, and its files exist and read back (the OBJ's UVs are the solution: the energy
// assembled again from them is the reported one). The built-in disk is forced by pointing
// DUALJIT_MESH_DIR at an empty folder, so that fetched real meshes do not change the test; a
// mesh file given in the options is used, subdivided and solved coarse to fine; bad input is
// named.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "backends/assembly/assembler.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/param_demo.h"
#include "examples/mesh_energy/parameterization.h"
#include "support/assembly.h"
#include "support/demo_files.h"
#include "support/gpu.h"

using namespace dualjit;
using namespace dualjit::mesh_energy;

namespace {

// Sets an environment variable for a scope, restoring the old value (or its absence) after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace

TEST_SUITE("param demo") {
  TEST_CASE("built-in disk on the CPU: flip-free, better than Tutte, files that read back") {
    test::TempDir tmp("dualjit_param_demo_");
    const ScopedEnv no_real_meshes("DUALJIT_MESH_DIR", (tmp.path() / "no meshes").string());
    DemoOptions o;
    o.backend = assembly::Backend::Cpu;
    o.size = 6;                               // rings: 127 vertices
    o.output_dir = tmp.path() / "out" / "x";  // created, with its parent
    const DemoReport r = run_param_demo(o);
    CHECK(r.ok);
    CHECK(r.name == "param");
    CHECK(r.backend == "cpu");
    CHECK(test::fact(r, "mesh") == "bumpy disk(6)");
    CHECK(test::fact(r, "vertices") == "127");
    CHECK(test::fact(r, "faces") == "216");
    CHECK(test::fact(r, "boundary vertices") == "36");
    CHECK(test::fact(r, "flipped triangles") == "0");
    const double start = std::stod(test::fact(r, "energy / (4 area) at Tutte's start"));
    const double end = std::stod(test::fact(r, "energy / (4 area)"));
    CHECK(end < start);
    CHECK(end >= 1.0);  // 1 only at an isometry, which the bumps rule out
    CHECK(end > 1.001);
    CHECK(std::stod(test::fact(r, "max face distortion")) >=
          std::stod(test::fact(r, "mean face distortion")));
    CHECK(std::stod(test::fact(r, "mean face distortion")) >= 1.0);

    // Newton converged; every record's energy at most the one before.
    REQUIRE(r.solve.converged());
    REQUIRE(r.solve.iterations.size() >= 2);
    CHECK(r.solve.solver == "newton");
    CHECK(std::stoi(test::fact(r, "Newton iterations")) == r.solve.n_steps());
    for (size_t k = 1; k < r.solve.iterations.size(); ++k) {
      CAPTURE(k);
      CHECK(r.solve.iterations[k].energy <= r.solve.iterations[k - 1].energy);
    }

    REQUIRE(r.files.size() == 3);
    CHECK(r.files[0].filename() == "param.obj");
    CHECK(r.files[1].filename() == "param_uv.png");
    CHECK(r.files[2].filename() == "convergence.png");
    for (const auto& f : r.files) {
      CAPTURE(f);
      CHECK(f.parent_path() == o.output_dir);
      CHECK(std::filesystem::file_size(f) > 100);
    }
    CHECK(test::is_png(r.files[1]));
    CHECK(test::is_png(r.files[2]));
    // The OBJ holds the solution: the UVs read back flip-free, and the energy assembled again
    // from the mesh and UVs read back is the reported one.
    const TriMesh back = read_tri_mesh(r.files[0]);
    REQUIRE(back.n_vertices() == 127);
    REQUIRE(back.uv.size() == size_t(127 * 2));
    CHECK(back.uv == r.solve.x);
    CHECK(count_flipped(back.faces, back.uv) == 0);
    assembly::Problem p = symmetric_dirichlet_problem(back, "param.obj read back");
    assembly::Assembler a(p, test::on_cpu());
    CHECK(a.energy(back.uv) == doctest::Approx(r.solve.energy).epsilon(1e-12));
  }

  TEST_CASE("a mesh file is used and subdivided; bad input is named") {
    test::TempDir tmp("dualjit_param_demo_");
    // disk(3) on a dome: a mesh the demo did not make.
    TriMesh dome = disk(3);
    for (int64_t v = 0; v < dome.n_vertices(); ++v)
      dome.x[v * 3 + 2] =
          0.5 * (1 - dome.x[v * 3] * dome.x[v * 3] - dome.x[v * 3 + 1] * dome.x[v * 3 + 1]);
    const std::filesystem::path file = tmp.path() / "dome.obj";
    write_obj(file, dome);
    DemoOptions o;
    o.backend = assembly::Backend::Cpu;
    o.mesh = file;
    o.size = 1;  // one midpoint subdivision: 37 + 90 edge midpoints
    o.output_dir = tmp.path();
    const DemoReport r = run_param_demo(o);
    CHECK(r.ok);
    CHECK(test::fact(r, "mesh") == file.string());
    CHECK(test::fact(r, "vertices") == "127");
    CHECK(test::fact(r, "faces") == "216");
    CHECK(test::fact(r, "flipped triangles") == "0");
    CHECK(std::stod(test::fact(r, "energy / (4 area)")) <
          std::stod(test::fact(r, "energy / (4 area) at Tutte's start")));
    // Solved coarse to fine: both levels in one history, renumbered, the energy non-increasing
    // (where the subdivided UVs start the fine level, up to round-off).
    const std::string levels = test::fact(r, "Newton iterations per level");
    CHECK(levels.find("(37 vertices), ") != std::string::npos);
    CHECK(levels.find("(127 vertices)") != std::string::npos);
    CHECK(r.solve.x.size() == size_t(127 * 2));
    for (size_t k = 1; k < r.solve.iterations.size(); ++k) {
      CAPTURE(k);
      CHECK(r.solve.iterations[k].iteration == int(k));
      CHECK(r.solve.iterations[k].energy <= r.solve.iterations[k - 1].energy * (1 + 1e-12));
    }

    o.size = 0;
    o.mesh = tmp.path() / "missing.off";
    CHECK_THROWS_WITH_AS(run_param_demo(o), doctest::Contains("missing.off"), MeshReadError);
    const std::filesystem::path closed = tmp.path() / "ball.obj";
    write_obj(closed, icosphere(1));
    o.mesh = closed;
    CHECK_THROWS_WITH_AS(run_param_demo(o), doctest::Contains("ball.obj: not a disk"),
                         MeshReadError);
    o.mesh.clear();
    o.size = -2;
    CHECK_THROWS_AS(run_param_demo(o), std::invalid_argument);
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("built-in disk on the GPU: the CPU's optimum, flip-free (device PCG, device bound)" *
            test::needs_gpu()) {
    test::TempDir tmp("dualjit_param_demo_gpu_");
    const ScopedEnv no_real_meshes("DUALJIT_MESH_DIR", (tmp.path() / "no meshes").string());
    DemoOptions o;
    o.size = 6;
    const auto [cpu, gpu] = test::run_on_cpu_and_gpu(run_param_demo, o, tmp.path());
    CHECK(gpu.ok);
    CHECK(gpu.backend == "cuda");
    CHECK(test::fact(gpu, "flipped triangles") == "0");
    REQUIRE(gpu.solve.converged());
    for (size_t k = 1; k < gpu.solve.iterations.size(); ++k) {
      CAPTURE(k);
      CHECK(gpu.solve.iterations[k].energy <= gpu.solve.iterations[k - 1].energy);
    }
    // Both stop on the Newton decrement (1e-6 of the isometric energy): the same minimum to
    // about that.
    CHECK(gpu.solve.energy == doctest::Approx(cpu.solve.energy).epsilon(1e-6));
  }
}
