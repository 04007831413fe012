// tape_rest_kernel (jit/tape_rest_kernel.h): its values at the tapes' values are the linear
// outputs' less their factor-free terms, the cuts' and the factor products'; its Jacobian is
// nonzero only where the factors and rests move. That it completes the Jacobian:
// tests/backends/tape_columns_test.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "dsl/reference_evaluator.h"
#include "jit/tape_rest_kernel.h"
#include "support/node_values.h"
#include "support/test_kernels.h"

using namespace dualjit;
using namespace dualjit::jit;

TEST_CASE("the tape rest kernel's values and Jacobian at random data") {
  const Kernel k = test::tape_kernel(true);
  const TapePattern p = tape_pattern(k);
  const std::vector<TapeLinearOutput> outs = tape_linear_outputs(k, p);
  const TapeColumnPlan plan = plan_tape_columns(p, outs, k.n_inputs(), 4);
  const TapeRestKernel rest = tape_rest_kernel(k, p, outs, plan);
  const size_t nl = plan.outputs.size(), nc = plan.cuts.size(), nf = plan.factors.size();
  REQUIRE(rest.kernel.n_outputs() == int(nl + nc + nf));
  REQUIRE(rest.tape_values == k.n_params());
  REQUIRE(rest.kernel.n_params() == k.n_params() + int(p.tapes.size()));
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 4; ++trial) {
    const auto [x, c] = test::random_point(k, rng);
    const std::vector<double> v = test::node_values(k, x, c);
    std::vector<double> params = c;
    for (NodeId t : p.tapes) params.push_back(v[size_t(t)]);
    const JacobianResult r = evaluate_jacobian(rest.kernel, {x, params, {}}, 0);
    const int ni = k.n_inputs();
    for (size_t l = 0; l < nl; ++l) {
      double want = v[size_t(k.outputs()[size_t(plan.outputs[l])])];
      for (const TapeTerm& t : outs[size_t(plan.outputs[l])].terms)
        if (t.factors.empty()) want -= t.scale * v[size_t(p.tapes[size_t(t.tape)])];
      CHECK(std::abs(r.values[l] - want) <= 1e-13 * std::max(1.0, std::abs(want)));
      for (int j = 0; j < ni; ++j) {
        // The species' rows have neither factors nor rests; the heat-like row's weights are
        // functions of T alone.
        const bool moves = plan.outputs[l] == 5 && j == 0;
        CAPTURE(l);
        CAPTURE(j);
        CHECK((r.jacobian[l * ni + j] != 0.0) == moves);
      }
    }
    // The cut s = 1 / (y1 + ... + y5): its value and gradient -s^2 in the y's.
    const double s = v[size_t(plan.cuts[0])];
    CHECK(r.values[nl] == doctest::Approx(s).epsilon(1e-14));
    CHECK(r.jacobian[nl * ni] == 0.0);
    for (int j = 1; j < ni; ++j)
      CHECK(r.jacobian[nl * ni + j] == doctest::Approx(-s * s).epsilon(1e-13));
    for (size_t f = 0; f < nf; ++f) {
      double prod = 1;
      for (const TapeFactor& x2 : plan.factors[f])
        prod *= x2.inverse ? 1.0 / v[size_t(x2.node)] : v[size_t(x2.node)];
      CHECK(r.values[nl + nc + f] == doctest::Approx(prod).epsilon(1e-13));
    }
  }
}

TEST_CASE("the tape rest kernel refuses a kernel with a slot of its name") {
  const Kernel k("rest_clash", [](KernelBuilder& kb) {
    auto x = kb.input("x", 2);
    auto t = kb.param("tape_values", 1);
    kb.output("y", std::vector<Expr>{2.0 * tape(x[0] * x[1]) + t[0]});
  });
  const TapePattern p = tape_pattern(k);
  const std::vector<TapeLinearOutput> outs = tape_linear_outputs(k, p);
  CHECK_THROWS_WITH_AS(tape_rest_kernel(k, p, outs, plan_tape_columns(p, outs, 2, 10)),
                       doctest::Contains("rest_clash"), std::invalid_argument);
}
