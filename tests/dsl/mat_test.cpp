// Small matrices in the DSL (dsl/mat.h): values against plain arithmetic on random,
// well-conditioned matrices; derivatives of the determinant and the inverse against their
// closed forms and central differences.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <random>

#include "dsl/kernel.h"
#include "dsl/mat.h"
#include "dsl/reference_evaluator.h"

using namespace dualjit;

namespace {

using D3 = std::array<double, 9>;

// A random 3x3 matrix near 2 I (determinant well away from zero), row-major.
D3 random_matrix(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  D3 a{};
  for (int k = 0; k < 9; ++k) a[k] = u(rng) + (k % 4 == 0 ? 2.0 : 0.0);
  return a;
}

double det3(const D3& a) {
  return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
         a[2] * (a[3] * a[7] - a[4] * a[6]);
}

// Inverse by Gauss-Jordan with partial pivoting: independent of the cofactor formula tested.
D3 inv3(D3 a) {
  D3 r{1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int c = 0; c < 3; ++c) {
    int p = c;
    for (int i = c + 1; i < 3; ++i)
      if (std::abs(a[i * 3 + c]) > std::abs(a[p * 3 + c])) p = i;
    for (int j = 0; j < 3; ++j)
      std::swap(a[c * 3 + j], a[p * 3 + j]), std::swap(r[c * 3 + j], r[p * 3 + j]);
    const double d = a[c * 3 + c];
    for (int j = 0; j < 3; ++j) a[c * 3 + j] /= d, r[c * 3 + j] /= d;
    for (int i = 0; i < 3; ++i) {
      if (i == c) continue;
      const double f = a[i * 3 + c];
      for (int j = 0; j < 3; ++j)
        a[i * 3 + j] -= f * a[c * 3 + j], r[i * 3 + j] -= f * r[c * 3 + j];
    }
  }
  return r;
}

Mat3 mat_input(KernelBuilder& kb, const char* name) {
  const auto a = kb.input(name, 9);
  Mat3 m;
  for (int k = 0; k < 9; ++k) m.m[k] = a[k];
  return m;
}

}  // namespace

TEST_CASE("Mat3: product, transpose, trace, Frobenius norm, determinant and inverse values") {
  const Kernel k("mat3", [](KernelBuilder& kb) {
    const Mat3 a = mat_input(kb, "a"), b = mat_input(kb, "b");
    const Mat3 ab = a * transpose(b), ai = inverse(a);
    std::vector<Expr> out(ab.m.begin(), ab.m.end());
    out.insert(out.end(), ai.m.begin(), ai.m.end());
    out.push_back(determinant(a));
    out.push_back(trace(a));
    out.push_back(frobenius_norm(a));
    const Vec<3> y = a * b.col(1);
    out.insert(out.end(), y.v.begin(), y.v.end());
    const Mat3 i = a * ai - identity<3>(a(0, 0));
    out.push_back(squared_frobenius_norm(i));
    kb.output("r", out);
  });
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const D3 a = random_matrix(rng), b = random_matrix(rng);
    std::vector<double> x(a.begin(), a.end());
    x.insert(x.end(), b.begin(), b.end());
    const auto r = evaluate_values(k, {x, {}, {}});
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        double s = 0;
        for (int q = 0; q < 3; ++q) s += a[i * 3 + q] * b[j * 3 + q];
        CHECK(r[i * 3 + j] == doctest::Approx(s).epsilon(1e-14));
      }
    }
    const D3 ai = inv3(a);
    for (int q = 0; q < 9; ++q) CHECK(r[9 + q] == doctest::Approx(ai[q]).epsilon(1e-12));
    CHECK(r[18] == doctest::Approx(det3(a)).epsilon(1e-14));
    CHECK(r[19] == doctest::Approx(a[0] + a[4] + a[8]).epsilon(1e-14));
    double f = 0;
    for (double v : a) f += v * v;
    CHECK(r[20] == doctest::Approx(std::sqrt(f)).epsilon(1e-14));
    for (int i = 0; i < 3; ++i) {
      const double yi = a[i * 3] * b[1] + a[i * 3 + 1] * b[4] + a[i * 3 + 2] * b[7];
      CHECK(r[21 + i] == doctest::Approx(yi).epsilon(1e-14));
    }
    CHECK(r[24] < 1e-26);  // A A^-1 = I
  }
}

TEST_CASE("Mat2 and rectangular products: determinant, inverse, J^T J of a 3x2 map") {
  const Kernel k("mat2", [](KernelBuilder& kb) {
    const auto p = kb.input("p", 4);
    const Mat2 a = Mat2::from_rows({Vec<2>({p[0], p[1]}), Vec<2>({p[2], p[3]})});
    const Mat2 ai = inverse(a);
    const auto e = kb.input("e", 6);
    const Mat<3, 2> j =
        Mat<3, 2>::from_cols({Vec<3>({e[0], e[1], e[2]}), Vec<3>({e[3], e[4], e[5]})});
    const Mat2 g = transpose(j) * j;  // the metric of a triangle's edge vectors
    std::vector<Expr> out(ai.m.begin(), ai.m.end());
    out.push_back(determinant(a));
    out.insert(out.end(), g.m.begin(), g.m.end());
    kb.output("r", out);
  });
  const std::vector<double> x = {1.5, 0.25, -0.5, 2.0, 1, 2, 3, -1, 0.5, 4};
  const auto r = evaluate_values(k, {x, {}, {}});
  const double det = 1.5 * 2.0 - 0.25 * -0.5;
  CHECK(r[4] == doctest::Approx(det));
  CHECK(r[0] == doctest::Approx(2.0 / det));
  CHECK(r[1] == doctest::Approx(-0.25 / det));
  CHECK(r[2] == doctest::Approx(0.5 / det));
  CHECK(r[3] == doctest::Approx(1.5 / det));
  CHECK(r[5] == doctest::Approx(1 + 4 + 9));
  CHECK(r[6] == doctest::Approx(-1 + 1 + 12));
  CHECK(r[7] == r[6]);
  CHECK(r[8] == doctest::Approx(1 + 0.25 + 16));
}

TEST_CASE(
    "Mat3 derivatives: d det / dA = det A^-T; the inverse's Jacobian by central differences") {
  const Kernel k("det_inv", [](KernelBuilder& kb) {
    const Mat3 a = mat_input(kb, "a");
    std::vector<Expr> out = {determinant(a)};
    const Mat3 ai = inverse(a);
    out.insert(out.end(), ai.m.begin(), ai.m.end());
    kb.output("r", out);
  });
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 10; ++trial) {
    const D3 a = random_matrix(rng);
    const std::vector<double> x(a.begin(), a.end());
    const auto jac = evaluate_jacobian(k, {x, {}, {}}, 9);
    const D3 ai = inv3(a);
    const double det = det3(a);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)  // d det / d a_ij = det (A^-1)_ji
        CHECK(jac.jacobian[i * 3 + j] == doctest::Approx(det * ai[j * 3 + i]).epsilon(1e-12));
    const double h = 1e-6;
    for (int q = 0; q < 9; ++q) {
      auto xp = x, xm = x;
      xp[q] += h;
      xm[q] -= h;
      const auto fp = evaluate_values(k, {xp, {}, {}}), fm = evaluate_values(k, {xm, {}, {}});
      for (int o = 1; o < 10; ++o) {
        CHECK(jac.jacobian[o * 9 + q] ==
              doctest::Approx((fp[o] - fm[o]) / (2 * h)).epsilon(1e-6).scale(1.0));
      }
    }
  }
}
