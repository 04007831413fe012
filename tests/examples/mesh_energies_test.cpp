// The mesh energies (examples/mesh_energy/): each energy's gradient and Hessian against central
// differences on random valid configurations away from rest, Hessian symmetry, H v equal to the
// HVP; the properties each energy is built for (symmetric Dirichlet's minimum at isometries,
// stable Neo-Hookean's stress-free and rotation-invariant rest and finite energy through
// inversion); the cloth problem assembled through the Assembler on the CPU.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "backends/assembly/assembler.h"
#include "dsl/reference_evaluator.h"
#include "examples/mesh_energy/cloth_energy.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/neo_hookean.h"
#include "examples/mesh_energy/smoothing_energy.h"
#include "examples/mesh_energy/symmetric_dirichlet.h"
#include "support/assembly.h"
#include "support/element_derivatives.h"

using namespace dualjit;
using namespace dualjit::mesh_energy;
using test::check_derivatives;

namespace {

// A random rotation (unit quaternion) as a row-major 3x3 matrix.
std::array<double, 9> random_rotation(std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  double q[4] = {g(rng), g(rng), g(rng), g(rng)};
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (double& c : q) c /= n;
  const double w = q[0], a = q[1], b = q[2], c = q[3];
  return {1 - 2 * (b * b + c * c), 2 * (a * b - w * c),     2 * (a * c + w * b),
          2 * (a * b + w * c),     1 - 2 * (a * a + c * c), 2 * (b * c - w * a),
          2 * (a * c - w * b),     2 * (b * c + w * a),     1 - 2 * (a * a + b * b)};
}

}  // namespace

TEST_CASE("symmetric Dirichlet: 4 area and zero gradient at isometries; derivatives elsewhere") {
  std::mt19937_64 rng(61);
  std::uniform_real_distribution<double> u(-1, 1);
  const Kernel k = symmetric_dirichlet_kernel();
  for (int trial = 0; trial < 10; ++trial) {
    TriMesh tri;
    tri.x = {u(rng), u(rng), u(rng), 1 + u(rng), u(rng), u(rng), u(rng), 1 + u(rng), u(rng)};
    tri.faces = {0, 1, 2};
    const auto p = symmetric_dirichlet_params(tri, "random triangle");
    const double area = p[4];
    // The rest triangle laid flat (e1 along x), then rotated by theta and moved.
    double e1[3], e2[3];
    for (int c = 0; c < 3; ++c) e1[c] = tri.x[3 + c] - tri.x[c], e2[c] = tri.x[6 + c] - tri.x[c];
    const double l1 = std::sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    const double x2 = (e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2]) / l1, y2 = 2 * area / l1;
    const double th = u(rng) * 3, cs = std::cos(th), sn = std::sin(th), tx = u(rng), ty = u(rng);
    const auto place = [&](double a, double b) {
      return std::array<double, 2>{cs * a - sn * b + tx, sn * a + cs * b + ty};
    };
    const auto q0 = place(0, 0), q1 = place(l1, 0), q2 = place(x2, y2);
    const std::vector<double> iso = {q0[0], q0[1], q1[0], q1[1], q2[0], q2[1]};
    const HessianResult r = evaluate_hessian(k, {iso, p, {}});
    CHECK(r.value == doctest::Approx(4 * area).epsilon(1e-12));
    for (double g : r.gradient) CHECK(std::abs(g) < 1e-10 * std::max(1.0, area));
    // A distorted, still positively oriented UV triangle: more energy, correct derivatives.
    std::vector<double> uv = iso;
    for (double& c : uv) c += 0.1 * u(rng);
    CHECK(evaluate_values(k, {uv, p, {}})[0] > 4 * area);
    check_derivatives(k, uv, p, {}, rng);
  }
  TriMesh flat;
  flat.x = {0, 0, 0, 1, 0, 0, 2, 0, 0};
  flat.faces = {0, 1, 2};
  CHECK_THROWS_WITH_AS(symmetric_dirichlet_params(flat, "flat.obj"),
                       doctest::Contains("face 0 has zero rest area"), MeshReadError);
}

TEST_CASE("stable Neo-Hookean: stress-free and rotation-invariant rest, finite through inversion") {
  std::mt19937_64 rng(62);
  std::uniform_real_distribution<double> u(-1, 1);
  const Kernel k = stable_neo_hookean_kernel();
  const Lame lame = lame_parameters(1e4, 0.45);
  const std::vector<double> uni = {lame.mu, lame.lambda};
  for (int trial = 0; trial < 8; ++trial) {
    std::vector<double> rest = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (double& c : rest) c += 0.2 * u(rng);
    const std::vector<int32_t> tet = {0, 1, 2, 3};
    const auto p = neo_hookean_params(rest, tet);
    CHECK(p[9] > 0);
    const HessianResult r0 = evaluate_hessian(k, {rest, p, uni});
    double gmax = 0;
    for (double g : r0.gradient) gmax = std::max(gmax, std::abs(g));
    CHECK(gmax < 1e-9 * lame.lambda);  // stress-free at rest
    // Rotated and moved: the same energy, still no force.
    const auto rot = random_rotation(rng);
    std::vector<double> turned(12);
    for (int v = 0; v < 4; ++v)
      for (int i = 0; i < 3; ++i)
        turned[v * 3 + i] = rot[i * 3] * rest[v * 3] + rot[i * 3 + 1] * rest[v * 3 + 1] +
                            rot[i * 3 + 2] * rest[v * 3 + 2] + 0.5 * i;
    const HessianResult rr = evaluate_hessian(k, {turned, p, uni});
    CHECK(rr.value == doctest::Approx(r0.value).epsilon(1e-10));
    for (double g : rr.gradient) CHECK(std::abs(g) < 1e-8 * lame.lambda);
    // Deformed, then inverted (vertex 3 through the opposite face): finite, correct derivatives.
    std::vector<double> x = rest;
    for (double& c : x) c += 0.15 * u(rng);
    check_derivatives(k, x, p, uni, rng);
    std::vector<double> inverted = x;
    for (int i = 0; i < 3; ++i) inverted[9 + i] = 2 * (x[i] + x[3 + i] + x[6 + i]) / 3 - x[9 + i];
    const double e_inv = evaluate_values(k, {inverted, p, uni})[0];
    CHECK(std::isfinite(e_inv));
    CHECK(e_inv > r0.value);
    check_derivatives(k, inverted, p, uni, rng);
  }
  CHECK_THROWS_WITH_AS(neo_hookean_params({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 2, 1, 3}),
                       doctest::Contains("tet 0 has rest volume"), std::invalid_argument);
  CHECK_THROWS_AS(lame_parameters(1e4, 0.5), std::invalid_argument);
}

TEST_CASE("cloth step and smoothing energies: derivatives on perturbed configurations") {
  std::mt19937_64 rng(63);
  std::uniform_real_distribution<double> u(-1, 1);
  const Kernel spring = cloth_spring_kernel(), inertia = cloth_inertia_kernel();
  const Kernel edge = edge_length_squared_kernel();
  for (int trial = 0; trial < 10; ++trial) {
    const double l = 0.05 + 0.05 * (1 + u(rng));
    // Compressed or stretched springs around the rest length.
    std::vector<double> x = {0, 0, 0, l * (1 + 0.3 * u(rng)), 0.02 * u(rng), 0.02 * u(rng)};
    check_derivatives(spring, x, {l}, {1e5, 0.01}, rng);
    check_derivatives(inertia, {u(rng), u(rng), u(rng)}, {u(rng), u(rng), u(rng), 0.01},
                      {0.01, 0, -9.8, 0}, rng);
    check_derivatives(edge, {u(rng), u(rng), u(rng), u(rng), u(rng), u(rng)}, {}, {}, rng);
  }
  const TriMesh d = disk(5);
  CHECK(static_cast<int64_t>(mesh_edges(d).size() / 2) == topology(d).edges);
}

TEST_CASE("cloth problem: the grid's step assembled on the CPU, H v equal to the HVP") {
  const ClothGrid g = cloth_grid(6);
  std::mt19937_64 rng(64);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x = g.mesh.x, v(x.size());
  for (double& c : x) c += 0.02 * u(rng);  // compressed and stretched springs
  for (double& c : v) c = u(rng);
  assembly::Problem p = cloth_problem(g, g.mesh.x);
  CHECK(p.term(0).elements.size() == int64_t(g.rest.size()));
  assembly::Assembler a(p, test::on_cpu());
  const auto grad = a.gradient(x);
  const auto h = a.hessian(x);
  const auto hv = a.hvp(x, v);
  // Central differences of the total energy along a random direction equal grad . v.
  const double eps = 1e-6;
  auto xp = x, xm = x;
  for (size_t i = 0; i < x.size(); ++i) xp[i] += eps * v[i], xm[i] -= eps * v[i];
  double gv = 0;
  for (size_t i = 0; i < x.size(); ++i) gv += grad[i] * v[i];
  CHECK(gv == doctest::Approx((a.energy(xp) - a.energy(xm)) / (2 * eps)).epsilon(1e-6));
  // The assembled Hessian times v is the HVP.
  std::vector<double> hv2(x.size(), 0.0);
  const mesh::BlockPattern& pat = *h.pattern;
  for (int64_t r = 0; r < pat.n_nodes(); ++r)
    for (int64_t q = pat.row_ptr()[r]; q < pat.row_ptr()[r + 1]; ++q)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          hv2[r * 3 + i] += h.values[q * 9 + i * 3 + j] * v[pat.col_idx()[q] * 3 + j];
  double scale = 0;
  for (double c : hv2) scale = std::max(scale, std::abs(c));
  for (size_t i = 0; i < x.size(); ++i) CHECK(std::abs(hv[i] - hv2[i]) <= 1e-12 * scale);
  CHECK_THROWS_AS(cloth_problem(g, std::vector<double>(5)), std::invalid_argument);
}
