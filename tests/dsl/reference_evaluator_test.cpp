// Chunked Jacobians, Hessian symmetry and consistency, HVPs, batches.
#include <doctest/doctest.h>

#include <random>

#include "dsl/reference_evaluator.h"
#include "support/random_kernel.h"

using namespace dualjit;

TEST_CASE("chunked Jacobians are identical for W = 1, 2, 3 and n") {
  std::mt19937_64 rng(11);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    test::RandomKernelOptions o;
    o.seed = seed;
    o.n_inputs = 7;
    o.n_outputs = 3;
    const Kernel k = test::random_kernel(o);
    const auto x = test::random_vector(7, rng), p = test::random_vector(2, rng),
               u = test::random_vector(1, rng);
    const ElementArgs a{x, p, u};
    const auto full = evaluate_jacobian(k, a, 7);
    for (int w : {1, 2, 3}) {
      const auto j = evaluate_jacobian(k, a, w);
      CHECK(j.values == full.values);
      CHECK(j.jacobian == full.jacobian);  // bit-identical: the same arithmetic per direction
    }
    // And the Jacobian agrees with central differences.
    const double h = 1e-6;
    for (int i = 0; i < 7; ++i) {
      auto xp = x, xm = x;
      xp[i] += h;
      xm[i] -= h;
      const auto fp = evaluate_values(k, {xp, p, u}), fm = evaluate_values(k, {xm, p, u});
      for (int r = 0; r < 3; ++r) {
        CHECK(full.jacobian[r * 7 + i] ==
              doctest::Approx((fp[r] - fm[r]) / (2 * h)).epsilon(1e-6).scale(1.0));
      }
    }
  }
}

TEST_CASE("Hessian is symmetric, matches differences of the gradient; HVP equals H v") {
  std::mt19937_64 rng(12);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    test::RandomKernelOptions o;
    o.seed = 100 + seed;
    o.n_inputs = 5;
    o.n_outputs = 1;
    const Kernel k = test::random_kernel(o);
    const auto x = test::random_vector(5, rng), p = test::random_vector(2, rng),
               u = test::random_vector(1, rng), v = test::random_vector(5, rng);
    const ElementArgs a{x, p, u};
    const auto h = evaluate_hessian(k, a);
    const auto g = evaluate_jacobian(k, a, 5);
    const auto hv = evaluate_hvp(k, a, v);
    CHECK(h.value == g.values[0]);
    CHECK(hv.value == g.values[0]);
    const double step = 1e-6;
    for (int i = 0; i < 5; ++i) {
      CHECK(h.gradient[i] == g.jacobian[i]);
      CHECK(hv.gradient[i] == g.jacobian[i]);
      auto xp = x, xm = x;
      xp[i] += step;
      xm[i] -= step;
      const auto gp = evaluate_jacobian(k, {xp, p, u}, 5).jacobian;
      const auto gm = evaluate_jacobian(k, {xm, p, u}, 5).jacobian;
      double hv_i = 0;
      for (int j = 0; j < 5; ++j) {
        CHECK(h.hessian[i * 5 + j] == doctest::Approx(h.hessian[j * 5 + i]).epsilon(1e-13));
        CHECK(h.hessian[i * 5 + j] ==
              doctest::Approx((gp[j] - gm[j]) / (2 * step)).epsilon(1e-6).scale(1.0));
        hv_i += h.hessian[i * 5 + j] * v[j];
      }
      CHECK(hv.hvp[i] == doctest::Approx(hv_i).epsilon(1e-12).scale(1.0));
    }
  }
}

TEST_CASE("batch evaluation lays out every mode element-major") {
  std::mt19937_64 rng(13);
  test::RandomKernelOptions o;
  o.n_inputs = 3;
  o.n_outputs = 1;
  const Kernel k = test::random_kernel(o);
  ElementBatch b;
  b.n_elements = 4;
  b.inputs = test::random_vector(12, rng);
  b.params = test::random_vector(8, rng);
  b.uniforms = test::random_vector(1, rng);
  b.directions = test::random_vector(12, rng);
  const auto hes = evaluate_batch(k, Mode::Hessian, b);
  const auto hvp = evaluate_batch(k, Mode::Hvp, b);
  const auto jac = evaluate_batch(k, Mode::Jacobian, b, 2);
  CHECK(hes.second.size() == 4 * 6);
  for (int e = 0; e < 4; ++e) {
    const ElementArgs a{std::span<const double>(b.inputs).subspan(e * 3, 3),
                        std::span<const double>(b.params).subspan(e * 2, 2), b.uniforms};
    const auto h = evaluate_hessian(k, a);
    for (int i = 0; i < 3; ++i) {
      CHECK(jac.first[e * 3 + i] == h.gradient[i]);
      for (int j = i; j < 3; ++j) {
        CHECK(hes.second[e * 6 + packed_upper_index(3, i, j)] == h.hessian[i * 3 + j]);
      }
    }
    const auto hv = evaluate_hvp(k, a, std::span<const double>(b.directions).subspan(e * 3, 3));
    for (int i = 0; i < 3; ++i) CHECK(hvp.second[e * 3 + i] == hv.hvp[i]);
  }
  CHECK_THROWS_AS(evaluate_batch(k, Mode::Value, ElementBatch{2, {1.0}, {}, {}, {}}), DslError);
}
