// The symmetric Dirichlet parameterization (examples/mesh_energy/parameterization.h): Tutte's
// embedding (boundary on the unit circle by arc length, interior vertices at their neighbours'
// average, no flipped triangle, with both weightings), the flip-free maximal step (just below it
// every orientation is kept, just above one flips; the exactly linear and the never-flipping
// cases), meshes that are not disks named in the errors, and the problem assembled on the CPU
// from Tutte's start, descended under the flip-free step.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "backends/assembly/assembler.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/parameterization.h"
#include "solvers/device_vector_space.h"
#include "solvers/solver_error.h"
#include "support/assembly.h"
#include "support/gpu.h"
#include "support/nvrtc_module.h"

using namespace dualjit;
using namespace dualjit::mesh_energy;

namespace {

// disk(rings) lifted onto a paraboloid and jittered in 3D, so that it is not flat and the mean
// value weights differ from the uniform ones.
TriMesh bumpy_disk(int rings, uint64_t seed) {
  TriMesh m = disk(rings);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const double h = 0.2 / rings;
  for (int64_t v = 0; v < m.n_vertices(); ++v) {
    double* p = &m.x[v * 3];
    p[2] = 1 - (p[0] * p[0] + p[1] * p[1]);
    for (int c = 0; c < 3; ++c) p[c] += h * u(rng);
  }
  return m;
}

double signed_area2(const std::vector<int32_t>& f, const std::vector<double>& uv, int64_t t) {
  const int32_t i = f[t * 3], j = f[t * 3 + 1], k = f[t * 3 + 2];
  return (uv[j * 2] - uv[i * 2]) * (uv[k * 2 + 1] - uv[i * 2 + 1]) -
         (uv[j * 2 + 1] - uv[i * 2 + 1]) * (uv[k * 2] - uv[i * 2]);
}

std::vector<double> moved(const std::vector<double>& uv, const std::vector<double>& d, double t) {
  std::vector<double> out(uv.size());
  for (size_t i = 0; i < uv.size(); ++i) out[i] = uv[i] + t * d[i];
  return out;
}

// flip_free_step_bound on host vectors, at uv along d.
double max_flip_free_step(std::span<const int32_t> faces, std::span<const double> uv,
                          std::span<const double> d) {
  const solvers::VectorSpace& s = solvers::host_space();
  const solvers::ElementStepBound bound =
      flip_free_step_bound(s, faces, static_cast<int64_t>(uv.size() / 2));
  return bound(s.from_host(uv), s.from_host(d));
}

}  // namespace

TEST_SUITE("parameterization") {
  TEST_CASE("Tutte's embedding: boundary on the unit circle by arc length, no flipped triangle") {
    for (int rings = 4; rings <= 8; rings += 2) {
      for (const TutteWeights w : {TutteWeights::Uniform, TutteWeights::MeanValue}) {
        CAPTURE(rings);
        CAPTURE(static_cast<int>(w));
        const TriMesh m = bumpy_disk(rings, 10 + rings);
        const std::string name = "bumpy disk(" + std::to_string(rings) + ")";
        const std::vector<int32_t> loop = boundary_loop(m, name);
        REQUIRE(loop.size() == size_t(6 * rings));
        const std::vector<double> uv = tutte_embedding(m, name, w);
        REQUIRE(uv.size() == size_t(m.n_vertices() * 2));
        CHECK(count_flipped(m.faces, uv) == 0);
        double min_area = INFINITY;
        for (int64_t t = 0; t < m.n_faces(); ++t)
          min_area = std::min(min_area, signed_area2(m.faces, uv, t));
        CHECK(min_area > 0);
        // On the circle, counter-clockwise, each arc proportional to its 3D edge.
        double perimeter = 0;
        for (size_t k = 0; k < loop.size(); ++k) {
          const int32_t a = loop[k], b = loop[(k + 1) % loop.size()];
          double l = 0;
          for (int c = 0; c < 3; ++c) l += std::pow(m.x[b * 3 + c] - m.x[a * 3 + c], 2);
          perimeter += std::sqrt(l);
        }
        for (size_t k = 0; k < loop.size(); ++k) {
          const int32_t a = loop[k], b = loop[(k + 1) % loop.size()];
          CHECK(std::hypot(uv[a * 2], uv[a * 2 + 1]) == doctest::Approx(1.0).epsilon(1e-12));
          double l = 0;
          for (int c = 0; c < 3; ++c) l += std::pow(m.x[b * 3 + c] - m.x[a * 3 + c], 2);
          const double turn = std::atan2(uv[a * 2] * uv[b * 2 + 1] - uv[a * 2 + 1] * uv[b * 2],
                                         uv[a * 2] * uv[b * 2] + uv[a * 2 + 1] * uv[b * 2 + 1]);
          CHECK(turn == doctest::Approx(2 * M_PI * std::sqrt(l) / perimeter).epsilon(1e-9));
        }
        if (w != TutteWeights::Uniform) continue;
        // Uniform weights: each interior vertex is its neighbours' average.
        std::vector<std::set<int32_t>> nb(m.n_vertices());
        for (int64_t t = 0; t < m.n_faces(); ++t)
          for (int c = 0; c < 3; ++c)
            for (int d = 0; d < 3; ++d)
              if (c != d) nb[m.faces[t * 3 + c]].insert(m.faces[t * 3 + d]);
        const std::set<int32_t> on_loop(loop.begin(), loop.end());
        double worst = 0;
        for (int32_t v = 0; v < m.n_vertices(); ++v) {
          if (on_loop.count(v)) continue;
          for (int c = 0; c < 2; ++c) {
            double mean = 0;
            for (int32_t n : nb[v]) mean += uv[n * 2 + c];
            worst = std::max(worst, std::abs(uv[v * 2 + c] - mean / nb[v].size()));
          }
        }
        CHECK(worst < 1e-12);
      }
    }
    // A square boundary (the cloth grid) goes to the circle too.
    const ClothGrid g = cloth_grid(5);
    const std::vector<double> uv = tutte_embedding(g.mesh, "cloth_grid(5)");
    CHECK(boundary_loop(g.mesh, "cloth_grid(5)").size() == 16);
    CHECK(count_flipped(g.mesh.faces, uv) == 0);
  }

  TEST_CASE("not a disk: the error names the mesh and what is wrong") {
    CHECK_THROWS_WITH_AS(boundary_loop(icosphere(1), "icosphere(1)"),
                         doctest::Contains("icosphere(1): not a disk: no boundary"), MeshReadError);
    // An annulus: disk(3) without the centre and its faces (vertices renumbered).
    TriMesh ring;
    const TriMesh d = disk(3);
    ring.x.assign(d.x.begin() + 3, d.x.end());
    for (int64_t t = 0; t < d.n_faces(); ++t) {
      const int32_t* v = &d.faces[t * 3];
      if (v[0] != 0 && v[1] != 0 && v[2] != 0)
        ring.faces.insert(ring.faces.end(), {v[0] - 1, v[1] - 1, v[2] - 1});
    }
    CHECK_THROWS_WITH_AS(tutte_embedding(ring, "annulus"),
                         doctest::Contains("annulus: not a disk: 2 boundary loops"), MeshReadError);
    // Two triangles sharing only a vertex: the boundary touches itself.
    TriMesh bowtie;
    bowtie.x = {0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1, 0};
    bowtie.faces = {0, 1, 2, 0, 3, 4};
    CHECK_THROWS_WITH_AS(boundary_loop(bowtie, "bowtie"),
                         doctest::Contains("bowtie: not a disk: the boundary touches itself at "
                                           "vertex 0"),
                         MeshReadError);
    // A torus with one face removed: one boundary loop, but a handle.
    TriMesh holed;
    const int n = 8, k = 6;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < k; ++j)
        holed.x.insert(holed.x.end(),
                       {(2 + std::cos(2 * M_PI * j / k)) * std::cos(2 * M_PI * i / n),
                        (2 + std::cos(2 * M_PI * j / k)) * std::sin(2 * M_PI * i / n),
                        std::sin(2 * M_PI * j / k)});
    const auto id = [&](int i, int j) { return int32_t((i % n) * k + (j % k)); };
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < k; ++j) {
        if (i + j > 0)
          holed.faces.insert(holed.faces.end(), {id(i, j), id(i + 1, j), id(i + 1, j + 1)});
        holed.faces.insert(holed.faces.end(), {id(i, j), id(i + 1, j + 1), id(i, j + 1)});
      }
    CHECK_THROWS_WITH_AS(tutte_embedding(holed, "holed torus"),
                         doctest::Contains("holed torus: not a disk: Euler characteristic -1"),
                         MeshReadError);
    // Two separate triangles.
    TriMesh two = bowtie;
    two.x.insert(two.x.end(), {5, 5, 0});
    two.faces = {0, 1, 2, 3, 4, 5};
    CHECK_THROWS_WITH_AS(parameterization(two, "two pieces"),
                         doctest::Contains("face 1 is not connected to face 0"), MeshReadError);
    TriMesh bad = disk(2);
    bad.faces[3 * 3 + 1] = 99;
    CHECK_THROWS_WITH_AS(parameterization(bad, "bad disk"),
                         doctest::Contains("bad disk: face 3: vertex 99 out of range"),
                         MeshReadError);
  }

  TEST_CASE("flip-free step bound: just below it nothing flips, just above a triangle does") {
    const TriMesh m = disk(5);
    const std::vector<double> uv = tutte_embedding(m, "disk(5)");
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      CAPTURE(seed);
      std::mt19937_64 rng(seed);
      std::normal_distribution<double> g;
      std::vector<double> d(uv.size());
      for (double& c : d) c = g(rng) * (seed % 2 ? 0.1 : 3.0);
      const double alpha = max_flip_free_step(m.faces, uv, d);
      REQUIRE(std::isfinite(alpha));
      REQUIRE(alpha > 0);
      CHECK(count_flipped(m.faces, moved(uv, d, alpha * (1 - 1e-6))) == 0);
      CHECK(count_flipped(m.faces, moved(uv, d, alpha * (1 + 1e-6))) >= 1);
      // Twice the direction, half the step.
      CHECK(max_flip_free_step(m.faces, uv, moved(d, d, 1.0)) ==
            doctest::Approx(alpha / 2).epsilon(1e-12));
    }
    // One vertex moving alone: every t^2 coefficient is exactly zero, the linear root decides.
    // The centre moving along +u flips triangle (0, a, b) when it crosses the line through a and
    // b: twice the area falls from c at the rate (b - a)_v.
    std::vector<double> d(uv.size(), 0.0);
    d[0] = 1.0;  // vertex 0, the centre, towards +u
    const double alpha = max_flip_free_step(m.faces, uv, d);
    double nearest = INFINITY;
    for (int64_t t = 0; t < m.n_faces(); ++t) {
      const int32_t* v = &m.faces[t * 3];
      if (v[0] != 0) continue;  // the disk's faces around the centre list it first
      const double rate = uv[v[2] * 2 + 1] - uv[v[1] * 2 + 1];
      if (rate > 0) nearest = std::min(nearest, signed_area2(m.faces, uv, t) / rate);
    }
    REQUIRE(std::isfinite(nearest));
    CHECK(alpha == doctest::Approx(nearest).epsilon(1e-12));
    CHECK(count_flipped(m.faces, moved(uv, d, alpha * (1 - 1e-9))) == 0);
    CHECK(count_flipped(m.faces, moved(uv, d, alpha * (1 + 1e-9))) >= 1);
    // One triangle, det(t) = 1 + b t + a t^2 for e1 = (1, 0), e2 = (0, 1), corner 0 fixed and
    // corners 1 and 2 moving by (p, q) and (r, s): b = p + s, a = p s - q r.
    const std::vector<int32_t> one = {0, 1, 2};
    const std::vector<double> unit = {0, 0, 1, 0, 0, 1};
    // a = -5, b = 9.5: roots -0.1 and 2; the positive one is the larger in magnitude, q / a.
    CHECK(max_flip_free_step(one, unit, std::vector<double>{0, 0, 4.75, 5.25, 5.25, 4.75}) ==
          doctest::Approx(2.0).epsilon(1e-15));
    // a = 1e-12, b = -1: the root 1 + 1e-12 + 2e-24, which the textbook formula
    // (-b - sqrt(b^2 - 4 a c)) / (2 a) gets only to about 1e-4.
    const std::vector<double> nearly_linear = {0, 0, -0.5, 1, 0.25 - 1e-12, -0.5};
    CHECK(max_flip_free_step(one, unit, nearly_linear) ==
          doctest::Approx(1 + 1e-12).epsilon(1e-15));
    // a = 0 exactly: the linear root -c / b, or none when det grows.
    CHECK(max_flip_free_step(one, unit, std::vector<double>{0, 0, -0.25, 0, 0, 0}) == 4.0);
    CHECK(max_flip_free_step(one, unit, std::vector<double>{0, 0, 0.25, 0, 0, 0}) ==
          std::numeric_limits<double>::infinity());
    // A translation (constant det) and a rotation (det grows like 1 + t^2) never flip.
    std::vector<double> shift(uv.size()), turn(uv.size());
    for (size_t v = 0; v < uv.size() / 2; ++v) {
      shift[v * 2] = 0.3, shift[v * 2 + 1] = -2;
      turn[v * 2] = -uv[v * 2 + 1], turn[v * 2 + 1] = uv[v * 2];
    }
    CHECK(max_flip_free_step(m.faces, uv, shift) == std::numeric_limits<double>::infinity());
    CHECK(max_flip_free_step(m.faces, uv, turn) == std::numeric_limits<double>::infinity());
    // Bad input is named.
    std::vector<double> flipped = uv;
    std::swap(flipped[m.faces[7 * 3] * 2], flipped[m.faces[7 * 3 + 1] * 2]);
    std::swap(flipped[m.faces[7 * 3] * 2 + 1], flipped[m.faces[7 * 3 + 1] * 2 + 1]);
    int64_t first = -1;  // the swap flips face 7 and may flip neighbours before it
    for (int64_t t = 0; t < m.n_faces() && first < 0; ++t)
      if (signed_area2(m.faces, flipped, t) <= 0) first = t;
    REQUIRE(first >= 0);
    REQUIRE(first <= 7);
    CHECK_THROWS_WITH_AS(max_flip_free_step(m.faces, flipped, d),
                         doctest::Contains(("step bound 'flip-free': element " +
                                            std::to_string(first) + " admits no step")
                                               .c_str()),
                         solvers::SolverError);
    CHECK_THROWS_AS(max_flip_free_step(m.faces, uv, std::vector<double>(3)), solvers::SolverError);
    std::vector<int32_t> out_of_range = m.faces;
    out_of_range[4 * 3 + 2] = int32_t(m.n_vertices());
    CHECK_THROWS_WITH_AS(max_flip_free_step(out_of_range, uv, d),
                         doctest::Contains("element 4 has node"), solvers::SolverError);
  }

  TEST_CASE("flip-free step bound: the device kernel compiles under NVRTC without a GPU") {
    const solvers::ElementStepBound bound =
        flip_free_step_bound(solvers::host_space(), disk(1).faces, disk(1).n_vertices());
    test::check_module_compiles("flip_free", solvers::element_step_bound_source(bound.function()),
                                {solvers::kElementStepBoundEntry},
                                solvers::element_step_bound_options());
  }

  TEST_CASE("symmetric Dirichlet problem: finite at Tutte's start, descends under the step") {
    const TriMesh m = bumpy_disk(4, 3);
    Parameterization p = parameterization(m, "bumpy disk(4)", TutteWeights::MeanValue);
    REQUIRE(p.problem.block_size() == 2);
    REQUIRE(p.problem.n_terms() == 1);
    CHECK(p.problem.term(0).name == "symmetric_dirichlet");
    CHECK(p.boundary.size() == 24);
    double rest_area = 0, uv_area = 0;
    for (int64_t t = 0; t < m.n_faces(); ++t) {
      rest_area += p.problem.term(0).params[t * 5 + 4];
      uv_area += 0.5 * signed_area2(m.faces, p.uv, t);
    }
    CHECK(uv_area == doctest::Approx(rest_area).epsilon(1e-12));
    assembly::Assembler a(p.problem, test::on_cpu());
    std::vector<double> uv = p.uv;
    double e = a.energy(uv);
    REQUIRE(std::isfinite(e));
    CHECK(e >= 4 * rest_area);
    const double e0 = e;
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> unit(-1, 1);
    for (int step = 0; step < 6; ++step) {
      const std::vector<double> g = a.gradient(uv);
      if (step == 0) {  // the gradient against central differences along a random direction
        std::vector<double> v(uv.size());
        for (double& c : v) c = unit(rng);
        const double h = 1e-6;
        double gv = 0;
        for (size_t i = 0; i < v.size(); ++i) gv += g[i] * v[i];
        CHECK(gv ==
              doctest::Approx((a.energy(moved(uv, v, h)) - a.energy(moved(uv, v, -h))) / (2 * h))
                  .epsilon(1e-6));
      }
      std::vector<double> d(g.size());
      double gg = 0;
      for (size_t i = 0; i < g.size(); ++i) d[i] = -g[i], gg += g[i] * g[i];
      // Backtracking from 0.9 of the flip-free step (Smith & Schaefer's safeguard).
      double t = std::min(1.0, 0.9 * max_flip_free_step(m.faces, uv, d));
      double e_new = a.energy(moved(uv, d, t));
      while (!(e_new <= e - 1e-4 * t * gg) && t > 1e-12) {
        t /= 2;
        e_new = a.energy(moved(uv, d, t));
      }
      REQUIRE(e_new < e);
      uv = moved(uv, d, t);
      e = e_new;
      CHECK(count_flipped(m.faces, uv) == 0);
    }
    CHECK(e < e0);
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("flip-free step bound: the GPU's equals the host's" * test::needs_gpu()) {
    const TriMesh m = disk(40);
    const std::vector<double> uv = tutte_embedding(m, "disk(40)");
    const solvers::DeviceSpace gpu;
    const solvers::VectorSpace& cpu = solvers::host_space();
    const solvers::ElementStepBound on_gpu = flip_free_step_bound(gpu, m.faces, m.n_vertices());
    const solvers::ElementStepBound on_cpu = flip_free_step_bound(cpu, m.faces, m.n_vertices());
    std::mt19937_64 rng(77);
    std::normal_distribution<double> g;
    for (int trial = 0; trial < 8; ++trial) {
      CAPTURE(trial);
      std::vector<double> d(uv.size());
      for (double& c : d) c = g(rng) * (trial % 2 ? 0.05 : 2.0);
      const double host = on_cpu(cpu.from_host(uv), cpu.from_host(d));
      REQUIRE(std::isfinite(host));
      // The same operations, each rounded on its own (--fmad=false): the same double.
      CHECK(on_gpu(gpu.from_host(uv), gpu.from_host(d)) == host);
    }
    std::vector<double> shift(uv.size(), 0.5);
    CHECK(on_gpu(gpu.from_host(uv), gpu.from_host(shift)) ==
          std::numeric_limits<double>::infinity());
    std::vector<double> flipped = uv;
    std::swap(flipped[m.faces[30 * 3] * 2], flipped[m.faces[30 * 3 + 1] * 2]);
    std::swap(flipped[m.faces[30 * 3] * 2 + 1], flipped[m.faces[30 * 3 + 1] * 2 + 1]);
    int64_t first = -1;
    for (int64_t t = 0; t < m.n_faces() && first < 0; ++t)
      if (signed_area2(m.faces, flipped, t) <= 0) first = t;
    REQUIRE(first >= 0);
    CHECK_THROWS_WITH_AS(
        on_gpu(gpu.from_host(flipped), gpu.from_host(shift)),
        doctest::Contains(("element " + std::to_string(first) + " admits").c_str()),
        solvers::SolverError);
  }
}
