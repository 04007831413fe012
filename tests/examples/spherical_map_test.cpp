// The spherical parameterization (examples/mesh_energy/spherical_map.h): the element energy's
// gradient and Hessian against central differences at random small tangent offsets, and the
// assembled ones on the CPU; the barrier growing like -mu A log(det) as a triangle approaches a
// great circle and infinite past it; the retraction keeping points on the unit sphere with
// orthonormal frames; the initial maps (Gauss map, stereographic Tutte fallback for a dented
// sphere) and errors for meshes that are not closed genus-0 surfaces; and plain gradient descent
// with backtracking, written here, lowering the energy while the map stays injective.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "backends/assembly/assembler.h"
#include "backends/mesh/export.h"
#include "dsl/reference_evaluator.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/spherical_map.h"
#include "support/assembly.h"
#include "support/element_derivatives.h"

using namespace dualjit;
using namespace dualjit::mesh_energy;

namespace {

// The icosphere stretched into an ellipsoid: star-shaped, so its Gauss map is injective, but
// far from the sphere, so the map has distortion to remove.
TriMesh ellipsoid(int level) {
  TriMesh m = icosphere(level);
  for (int64_t v = 0; v < m.n_vertices(); ++v) m.x[v * 3] *= 2.0, m.x[v * 3 + 2] *= 0.7;
  return m;
}

// The icosphere with its top cap (z > 0.3) reflected through the plane z = 0.3: a dimple whose
// bottom lies below the centroid, so the Gauss map folds.
TriMesh dented_sphere(int level) {
  TriMesh m = icosphere(level);
  for (int64_t v = 0; v < m.n_vertices(); ++v)
    if (m.x[v * 3 + 2] > 0.3) m.x[v * 3 + 2] = 0.6 - m.x[v * 3 + 2];
  return m;
}

// An n x m torus: closed, Euler characteristic 0.
TriMesh torus(int n, int m) {
  TriMesh t;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      const double a = 2 * M_PI * i / n, b = 2 * M_PI * j / m;
      t.x.insert(t.x.end(),
                 {(2 + std::cos(b)) * std::cos(a), (2 + std::cos(b)) * std::sin(a), std::sin(b)});
    }
  }
  const auto id = [&](int i, int j) { return int32_t((i % n) * m + (j % m)); };
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      t.faces.insert(t.faces.end(), {id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      t.faces.insert(t.faces.end(), {id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  }
  return t;
}

std::vector<double> element_params(const assembly::Problem& p, int64_t f) {
  const auto& all = p.term(0).params;
  return std::vector<double>(all.begin() + f * 32, all.begin() + (f + 1) * 32);
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

std::vector<double> axpy(const std::vector<double>& x, double t, const std::vector<double>& d) {
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] + t * d[i];
  return out;
}

}  // namespace

TEST_SUITE("spherical map") {
  TEST_CASE("energy derivatives against central differences at random small offsets") {
    const SphericalMap map(ellipsoid(1), "ellipsoid(1)");
    REQUIRE_FALSE(map.started_from_fallback());
    assembly::Problem p = map.problem();
    REQUIRE(p.block_size() == 2);
    const Kernel& k = *p.term(0).kernel;
    std::mt19937_64 rng(71);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int64_t f : {0, 7, 33, 61, 79}) {
      std::vector<double> x(6);
      for (double& c : x) c = 0.05 * u(rng);
      test::check_derivatives(k, x, element_params(p, f), {map.barrier()}, rng);
    }
    // Assembled on the CPU: the energy at offsets is the energy of the retracted map; the
    // gradient and Hessian against central differences along a random direction.
    assembly::Assembler a(p, test::on_cpu());
    std::vector<double> x(map.mesh().n_vertices() * 2), v(x.size());
    for (double& c : x) c = 0.02 * u(rng);
    for (double& c : v) c = u(rng);
    const std::vector<double> moved = map.retracted(x);
    REQUIRE(count_inverted(map.mesh().faces, moved) == 0);
    const double e = a.energy(x);
    SphericalMap there(map.mesh(), "ellipsoid(1), moved", moved);
    assembly::Problem p2 = there.problem();
    assembly::Assembler a2(p2, test::on_cpu());
    CHECK(a2.energy(std::vector<double>(x.size(), 0.0)) == doctest::Approx(e).epsilon(1e-12));
    const std::vector<double> g = a.gradient(x);
    const double h = 1e-6;
    CHECK(dot(g, v) ==
          doctest::Approx((a.energy(axpy(x, h, v)) - a.energy(axpy(x, -h, v))) / (2 * h))
              .epsilon(1e-6));
    const Eigen::SparseMatrix<double> hess = mesh::to_eigen(a.hessian(x));
    const Eigen::VectorXd hv = hess * Eigen::Map<const Eigen::VectorXd>(v.data(), v.size());
    const std::vector<double> gp = a.gradient(axpy(x, h, v)), gm = a.gradient(axpy(x, -h, v));
    double scale = 0, err = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      scale = std::max(scale, std::abs(hv[i]));
      err = std::max(err, std::abs(hv[i] - (gp[i] - gm[i]) / (2 * h)));
    }
    CHECK(err <= 1e-6 * scale);
  }

  TEST_CASE("barrier: -mu A log(det) as a triangle nears a great circle, infinite past it") {
    const SphericalMap map(icosphere(1), "icosphere(1)", 0.25);
    assembly::Problem p = map.problem();
    const Kernel& k = *p.term(0).kernel;
    const int64_t f = 5;
    const std::vector<double> prm = element_params(p, f);
    const double area = prm[31];
    // Move corner 2 against the normal n = x0 x x1 of the great circle through corners 0 and 1:
    // det(x0, x1, x2(t)) = n . (p2 + t D) / |p2 + t D| reaches zero at t* = n . p2 / |D|^2.
    const double* x0 = &prm[0];
    const double* x1 = &prm[9];
    const double* p2 = &prm[18];
    const double* b1 = &prm[21];
    const double* b2 = &prm[24];
    const double n[3] = {x0[1] * x1[2] - x0[2] * x1[1], x0[2] * x1[0] - x0[0] * x1[2],
                         x0[0] * x1[1] - x0[1] * x1[0]};
    const double nb1 = n[0] * b1[0] + n[1] * b1[1] + n[2] * b1[2];
    const double nb2 = n[0] * b2[0] + n[1] * b2[1] + n[2] * b2[2];
    const double np = n[0] * p2[0] + n[1] * p2[1] + n[2] * p2[2];
    REQUIRE(np > 0);
    const double t_star = np / (nb1 * nb1 + nb2 * nb2);
    const auto energy_at = [&](double t) {
      return evaluate_values(k, {std::vector<double>{0, 0, 0, 0, -t * nb1, -t * nb2}, prm,
                                 std::vector<double>{map.barrier()}})[0];
    };
    double last = energy_at(0);
    std::vector<double> e(9);
    for (int j = 1; j <= 8; ++j) {
      e[j] = energy_at(t_star * (1 - std::pow(10.0, -j)));
      CHECK(e[j] > last);
      last = e[j];
    }
    // det falls by 10^4 from 1e-4 to 1e-8 of the way: the barrier rises by mu A log(1e4).
    CHECK(e[8] - e[4] == doctest::Approx(map.barrier() * area * std::log(1e4)).epsilon(1e-3));
    CHECK(std::isinf(energy_at(t_star * 1.001)));
    CHECK(energy_at(t_star * 1.001) > 0);
    // The map past t* has exactly that triangle inverted.
    std::vector<double> offsets(map.mesh().n_vertices() * 2, 0.0);
    const int32_t corner2 = map.mesh().faces[f * 3 + 2];
    offsets[corner2 * 2] = -1.001 * t_star * nb1;
    offsets[corner2 * 2 + 1] = -1.001 * t_star * nb2;
    const std::vector<double> past = map.retracted(offsets);
    CHECK(count_inverted(map.mesh().faces, past) >= 1);
    offsets[corner2 * 2] *= 0.99 / 1.001;
    offsets[corner2 * 2 + 1] *= 0.99 / 1.001;
    CHECK(count_inverted(map.mesh().faces, map.retracted(offsets)) == 0);
  }

  TEST_CASE("retraction: points stay on the unit sphere, frames orthonormal and rebuilt") {
    SphericalMap map(icosphere(2), "icosphere(2)");
    const int64_t nv = map.mesh().n_vertices();
    const auto check_frames = [&](const SphericalMap& s) {
      double worst = 0;
      for (int64_t v = 0; v < nv; ++v) {
        const double* p = &s.points()[v * 3];
        const double* b1 = &s.frames()[v * 6];
        const double* b2 = b1 + 3;
        const auto d = [](const double* a, const double* b) {
          return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        };
        const double c[3] = {b1[1] * b2[2] - b1[2] * b2[1], b1[2] * b2[0] - b1[0] * b2[2],
                             b1[0] * b2[1] - b1[1] * b2[0]};
        worst = std::max({worst, std::abs(d(p, p) - 1), std::abs(d(b1, b1) - 1),
                          std::abs(d(b2, b2) - 1), std::abs(d(p, b1)), std::abs(d(p, b2)),
                          std::abs(d(b1, b2)), std::abs(c[0] - p[0]), std::abs(c[1] - p[1]),
                          std::abs(c[2] - p[2])});
      }
      return worst;
    };
    CHECK(check_frames(map) < 1e-14);
    // Zero offsets keep the points; large ones still land on the sphere; small ones move along
    // b1 u + b2 v to first order.
    const std::vector<double> same = map.retracted(std::vector<double>(nv * 2, 0.0));
    for (size_t i = 0; i < same.size(); ++i) CHECK(same[i] == doctest::Approx(map.points()[i]));
    std::mt19937_64 rng(72);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> big(nv * 2), small(nv * 2);
    for (double& c : big) c = 3 * u(rng);
    for (double& c : small) c = 1e-4 * u(rng);
    const std::vector<double> far = map.retracted(big), near = map.retracted(small);
    double off_sphere = 0, second_order = 0;
    for (int64_t v = 0; v < nv; ++v) {
      const double* q = &far[v * 3];
      off_sphere =
          std::max(off_sphere, std::abs(std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]) - 1));
      for (int c = 0; c < 3; ++c) {
        const double linear = map.points()[v * 3 + c] + map.frames()[v * 6 + c] * small[v * 2] +
                              map.frames()[v * 6 + 3 + c] * small[v * 2 + 1];
        second_order = std::max(second_order, std::abs(near[v * 3 + c] - linear));
      }
    }
    CHECK(off_sphere < 1e-15 * 4);
    CHECK(second_order < 1e-7);  // |offset|^2 / 2 at most 1e-8
    CHECK(second_order > 0);
    map.retract(big);
    for (size_t i = 0; i < far.size(); ++i) CHECK(map.points()[i] == far[i]);
    CHECK(check_frames(map) < 1e-14);
    CHECK_THROWS_AS(map.retracted(std::vector<double>(3)), std::invalid_argument);
  }

  TEST_CASE("initial map: Gauss map when star-shaped, stereographic Tutte fallback otherwise") {
    const TriMesh ico = icosphere(1);
    const std::vector<double> g = gauss_map(ico);
    for (size_t i = 0; i < g.size(); ++i) CHECK(g[i] == doctest::Approx(ico.x[i]).epsilon(1e-12));
    CHECK(count_inverted(ico.faces, g) == 0);
    CHECK(count_inverted(ico.faces, stereographic_tutte_map(ico, "icosphere(1)")) == 0);

    const TriMesh dent = dented_sphere(2);
    REQUIRE(count_inverted(dent.faces, gauss_map(dent)) > 0);
    const SphericalMap map(dent, "dented sphere");
    CHECK(map.started_from_fallback());
    CHECK(map.inverted() == 0);
    assembly::Problem p = map.problem();
    assembly::Assembler a(p, test::on_cpu());
    CHECK(std::isfinite(a.energy(std::vector<double>(dent.n_vertices() * 2, 0.0))));

    CHECK_THROWS_WITH_AS(SphericalMap(disk(3), "disk(3)"),
                         doctest::Contains("disk(3): not a closed surface"), MeshReadError);
    CHECK_THROWS_WITH_AS(SphericalMap(torus(8, 6), "torus"),
                         doctest::Contains("torus: not genus 0: Euler characteristic 0"),
                         MeshReadError);
    std::vector<double> flipped = ico.x;
    for (size_t i = 0; i < flipped.size(); i += 3) flipped[i] = -flipped[i];  // a reflection
    CHECK_THROWS_WITH_AS(SphericalMap(ico, "mirrored", flipped),
                         doctest::Contains("mirrored: face 0 is inverted"), std::invalid_argument);
    CHECK_THROWS_AS(SphericalMap(ico, "short", std::vector<double>(6, 1.0)), std::invalid_argument);
  }

  TEST_CASE("gradient descent with backtracking lowers the energy, the map stays injective") {
    SphericalMap map(ellipsoid(1), "ellipsoid(1)");
    const int64_t nv = map.mesh().n_vertices();
    const std::vector<double> zero(nv * 2, 0.0);
    double e0 = 0, e = 0, t = 1.0;
    for (int step = 0; step < 8; ++step) {
      CAPTURE(step);
      assembly::Problem p = map.problem();
      assembly::Assembler a(p, test::on_cpu());
      const double here = a.energy(zero);
      if (step == 0) {
        e0 = e = here;
      } else {
        CHECK(here == doctest::Approx(e).epsilon(1e-10));  // rebuilt frames, same map
      }
      const std::vector<double> g = a.gradient(zero);
      const double gg = dot(g, g);
      t *= 4;
      std::vector<double> x = axpy(zero, -t, g);
      double e_new = a.energy(x);
      while (!(e_new <= e - 1e-4 * t * gg) ||
             count_inverted(map.mesh().faces, map.retracted(x)) != 0) {
        t /= 2;
        REQUIRE(t > 1e-14);
        x = axpy(zero, -t, g);
        e_new = a.energy(x);
      }
      CHECK(e_new < e);
      map.retract(x);
      e = e_new;
      CHECK(map.inverted() == 0);
    }
    CHECK(e < 0.95 * e0);
  }
}
