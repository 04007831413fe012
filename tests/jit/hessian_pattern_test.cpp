// jit/hessian_pattern.h: the structural sparsity of a kernel's Hessian from its graph, against
// hand-derived patterns and against the reference evaluator's Hessians of random kernels
// (every entry outside the pattern is zero at random points).
#include <doctest/doctest.h>

#include <random>

#include "dsl/reference_evaluator.h"
#include "jit/hessian_pattern.h"
#include "support/random_kernel.h"

using namespace dualjit;

namespace {

std::vector<std::pair<int, int>> pairs_of(const jit::HessianPattern& p) {
  std::vector<std::pair<int, int>> out;
  for (int i = 0; i < p.n; ++i) {
    for (int j = 0; j < p.n; ++j) {
      if (p.nonzero(i, j)) out.emplace_back(i, j);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("Hessian pattern: sums separate, products and nonlinear functions couple") {
  // x0 x1 + x2^2 + sin(x3) + x4 / x5 + select(x6 > x7, 2 x8, 1) + 3 |x9| + min(x10, x11)
  const Kernel k("mixed", [](KernelBuilder& kb) {
    auto x = kb.input("x", 12);
    kb.output("e", x[0] * x[1] + x[2] * x[2] + sin(x[3]) + x[4] / x[5] +
                       select(x[6] > x[7], 2.0 * x[8], 1.0) + 3.0 * abs(x[9]) + min(x[10], x[11]));
  });
  const jit::HessianPattern p = jit::hessian_pattern(k);
  CHECK(p.n == 12);
  CHECK(pairs_of(p) ==
        std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {2, 2}, {3, 3}, {4, 5}, {5, 4}, {5, 5}});
  // A per-vertex mass: the diagonal only.
  const Kernel mass("mass", [](KernelBuilder& kb) {
    auto x = kb.input_vec<3>("x");
    auto m = kb.param("m", 1);
    kb.output("e", 0.5 * m[0] * dot(x, x) - m[0] * 9.8 * x[1]);
  });
  CHECK(pairs_of(jit::hessian_pattern(mass)) ==
        std::vector<std::pair<int, int>>{{0, 0}, {1, 1}, {2, 2}});
  // Past 64 inputs: not analysed, every pair may be nonzero.
  const Kernel wide("wide", [](KernelBuilder& kb) {
    auto x = kb.input("x", 65);
    kb.output("e", x[0] + x[64]);
  });
  CHECK(jit::hessian_pattern(wide).rows.empty());
  CHECK(jit::hessian_pattern(wide).nonzero(3, 7));
}

TEST_CASE("Hessian pattern: random kernels have zero Hessian entries outside it") {
  int sparse_kernels = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    CAPTURE(seed);
    test::RandomKernelOptions o;
    o.n_inputs = 6;
    o.n_outputs = 1;
    o.n_nodes = 12 + int(seed % 20);
    o.smooth_only = seed % 2 == 0;
    o.seed = seed;
    const Kernel k = test::random_kernel(o);
    const jit::HessianPattern p = jit::hessian_pattern(k);
    REQUIRE(p.rows.size() == 6);
    sparse_kernels += pairs_of(p).size() < 36;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.5, 1.5);  // the kernels' defined range
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<double> x(6), params(o.n_params), u(o.n_uniforms);
      for (double& v : x) v = unit(rng);
      for (double& v : params) v = unit(rng);
      for (double& v : u) v = unit(rng);
      const HessianResult r = evaluate_hessian(k, {x, params, u});
      for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
          if (!p.nonzero(i, j)) CHECK(r.hessian[i * 6 + j] == 0.0);
        }
      }
    }
  }
  CHECK(sparse_kernels > 10);  // the property is tested on patterns that leave pairs out
}
