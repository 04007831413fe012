// The solvers' vector spaces (solvers/vector_space.h, device_vector_space.h): the host space's
// operations on random values, b = 0 overwriting NaN, masks keeping NaN where free; the device
// module compiles under NVRTC for sm_90 without a GPU; on a GPU every operation equals the
// host's, dots repeat bit for bit, and vectors of the wrong size or memory are refused.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "jit/nvrtc_compiler.h"
#include "solvers/device_vector_space.h"
#include "solvers/solver_error.h"
#include "solvers/vector_space.h"
#include "support/gpu.h"
#include "support/nvrtc_module.h"
#include "support/random_kernel.h"

using namespace dualjit;
using namespace dualjit::solvers;

namespace {

std::vector<double> random_values(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  return test::random_vector(size_t(n), rng, -2.0, 3.0);
}

// Every operation on `space` against plain loops, for lengths around the grid's and the
// parallel loop's thresholds.
void check_space(const VectorSpace& s, double dot_tolerance) {
  for (int64_t n : {1, 7, 255, 257, 20000, 300001}) {
    CAPTURE(n);
    const std::vector<double> a = random_values(n, 11 + n), b = random_values(n, 23 + n);
    const Vector va = s.from_host(a), vb = s.from_host(b);
    CHECK(va.size() == n);
    CHECK(s.to_host(va) == a);

    double ref = 0;
    for (int64_t i = 0; i < n; ++i) ref += a[i] * b[i];
    const double d = s.dot(va, vb);
    CHECK(d == doctest::Approx(ref).epsilon(dot_tolerance));
    CHECK(s.dot(va, vb) == d);  // bit for bit
    CHECK(s.norm(va) == doctest::Approx(std::sqrt(s.dot(va, va))));

    // A GPU contracts a x + b y into a fused multiply-add: equal to within an ulp of the terms.
    const auto near = [](double got, double p, double q) {
      return std::abs(got - (p + q)) <= 4e-16 * (std::abs(p) + std::abs(q));
    };
    Vector y = s.clone(vb);
    s.axpby(0.75, va, -1.5, y);
    std::vector<double> out = s.to_host(y);
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) wrong += !near(out[i], 0.75 * a[i], -1.5 * b[i]);
    CHECK(wrong == 0);

    Vector z = s.zeros(n);
    CHECK(s.to_host(z) == std::vector<double>(n, 0.0));
    s.add_scaled(va, -0.25, vb, z);
    out = s.to_host(z);
    for (int64_t i = 0; i < n; ++i) wrong += !near(out[i], a[i], -0.25 * b[i]);
    CHECK(wrong == 0);

    // b = 0 overwrites y, NaN included; a mask zeroes only where it is 0, keeping a free NaN.
    std::vector<double> nan(n, std::numeric_limits<double>::quiet_NaN());
    Vector w = s.from_host(nan);
    s.axpby(2.0, va, 0.0, w);
    out = s.to_host(w);
    for (int64_t i = 0; i < n; ++i) wrong += out[i] != 2.0 * a[i];
    CHECK(wrong == 0);
    std::vector<double> mask(n, 1.0);
    for (int64_t i = 0; i < n; i += 3) mask[i] = 0.0;
    Vector m = s.from_host(mask), p = s.from_host(nan);
    s.apply_mask(m, p);
    out = s.to_host(p);
    for (int64_t i = 0; i < n; ++i) wrong += !(i % 3 == 0 ? out[i] == 0.0 : std::isnan(out[i]));
    CHECK(wrong == 0);

    Vector c = s.zeros(n);
    s.copy(vb, c);
    CHECK(s.to_host(c) == b);

    // Many dots and terms at once (more than one launch holds), one term aliasing y.
    if (n > 20000) continue;
    // Counts that take each compiled kernel: 3 (4), 12 (16), 45 (40, then 8).
    for (const int many : {3, 12, 45}) {
      CAPTURE(many);
      std::vector<std::vector<double>> host(many);
      std::vector<Vector> vs;
      for (int k = 0; k < many; ++k) {
        host[k] = random_values(n, 100 + k);
        vs.push_back(s.from_host(host[k]));
      }
      std::vector<const Vector*> pa, pb;
      for (int k = 0; k < many; ++k) {
        pa.push_back(&vs[k]);
        pb.push_back(&vs[(k * 7) % many]);
      }
      const std::vector<double> ds = s.dots(pa, pb);
      REQUIRE(ds.size() == size_t(many));
      for (int k = 0; k < many; ++k) {
        double r = 0;
        for (int64_t i = 0; i < n; ++i) r += host[k][i] * host[(k * 7) % many][i];
        CHECK(ds[k] == doctest::Approx(r).epsilon(1e-12));
      }
      CHECK(s.dots(pa, pb) == ds);  // bit for bit
      std::vector<double> coef;
      for (int k = 0; k < many; ++k) coef.push_back(0.1 * (k + 1));
      Vector acc = s.clone(vs[0]);
      pa[many - 3] = &acc;  // y itself among the terms (past the first launch's 40 at 45)
      s.combine(coef, pa, 0.5, acc);
      out = s.to_host(acc);
      for (int64_t i = 0; i < n; ++i) {
        double r = 0.5 * host[0][i];
        for (int k = 0; k < many; ++k) r += coef[k] * (k == many - 3 ? host[0][i] : host[k][i]);
        wrong += std::abs(out[i] - r) > 1e-13 * (1 + std::abs(r));
      }
      CHECK(wrong == 0);
      s.set_zero(acc);
      CHECK(s.to_host(acc) == std::vector<double>(n, 0.0));
    }
  }
  const Vector three = s.zeros(3), four = s.zeros(4);
  CHECK_THROWS_AS(s.dot(three, four), SolverError);
}

}  // namespace

TEST_CASE("the host vector space: every operation against plain loops") {
  check_space(host_space(), 1e-12);
  const Vector v = host_space().from_host(std::vector<double>{1.0, 2.0});
  CHECK(!v.on_device());
  CHECK(v.host()[1] == 2.0);
}

TEST_CASE("the device vector space's module compiles under NVRTC for sm_90 without a GPU") {
  test::check_module_compiles(
      "vector_space", device_vector_space_source(),
      {"dj_vs_mask", "dj_vs_dots_1", "dj_vs_dots_2", "dj_vs_dots_4", "dj_vs_dots_8",
       "dj_vs_dots_16", "dj_vs_dots_40", "dj_vs_combine_1", "dj_vs_combine_2", "dj_vs_combine_4",
       "dj_vs_combine_8", "dj_vs_combine_16", "dj_vs_combine_40"});
}

TEST_SUITE("gpu") {
  TEST_CASE("the device vector space equals the host's; host vectors are refused" *
            test::needs_gpu()) {
    const DeviceSpace s;
    check_space(s, 1e-12);
    const Vector d = s.zeros(5);
    CHECK(d.on_device());
    CHECK_THROWS_WITH_AS(d.host(), doctest::Contains("device memory"), SolverError);
    Vector h = host_space().zeros(5);
    CHECK_THROWS_WITH_AS(s.axpby(1.0, d, 1.0, h), doctest::Contains("DeviceSpace::combine"),
                         SolverError);
  }
}
