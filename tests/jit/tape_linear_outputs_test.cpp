// tape_linear_outputs (jit/tape_linear_outputs.h): which outputs of a tape kernel are linear
// in its tapes, with what terms; the terms checked against the graph's own values at random
// inputs (never at zero).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "jit/tape_linear_outputs.h"
#include "support/node_values.h"
#include "support/test_kernels.h"

using namespace dualjit;
using namespace dualjit::jit;

namespace {

double factor_product(const std::vector<TapeFactor>& factors, const std::vector<double>& v) {
  double p = 1;
  for (const TapeFactor& f : factors) p *= f.inverse ? 1.0 / v[size_t(f.node)] : v[size_t(f.node)];
  return p;
}

// sum(terms) + sum(rest) at the nodes' values.
double recomposed(const TapeLinearOutput& o, const TapePattern& p, const std::vector<double>& v) {
  double s = 0;
  for (const TapeTerm& t : o.terms)
    s += t.scale * factor_product(t.factors, v) * v[size_t(p.tapes[size_t(t.tape)])];
  for (const TapeFreeTerm& t : o.rest)
    s += t.scale * factor_product(t.factors, v) * v[size_t(t.node)];
  return s;
}

}  // namespace

TEST_CASE("a mechanism's rows are linear in its rates of progress, with their coefficients") {
  const Kernel k = test::tape_kernel(true);
  const TapePattern p = tape_pattern(k);
  const std::vector<TapeLinearOutput> outs = tape_linear_outputs(k, p);
  REQUIRE(outs.size() == 7);
  // The species' rows: the stoichiometry of test_kernels.h's seven reactions, 0.5 q_7 in row 2.
  const int reactants[7][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}, {0, 2}, {1, 3}};
  const int products[7] = {2, 3, 4, 0, 1, 4, 0};
  std::vector<std::map<int, double>> expected(5);
  for (int r = 0; r < 7; ++r) {
    expected[size_t(reactants[r][0])][r] -= 1;
    expected[size_t(reactants[r][1])][r] -= 1;
    expected[size_t(products[r])][r] += 1;
  }
  expected[2][7] += 0.5;
  for (size_t k5 = 0; k5 < 5; ++k5) {
    CAPTURE(k5);
    REQUIRE(outs[k5].linear);
    CHECK(outs[k5].rest.empty());
    std::map<int, double> got;
    for (const TapeTerm& t : outs[k5].terms) {
      CHECK(t.factors.empty());
      got[t.tape] += t.scale;
    }
    std::erase_if(expected[k5], [](const auto& kv) { return kv.second == 0.0; });
    CHECK(got == expected[k5]);
  }
  // The heat-release-like row: every tape, T-dependent weights, divided by T.
  REQUIRE(outs[5].linear);
  CHECK(outs[5].terms.size() == 8);
  for (const TapeTerm& t : outs[5].terms) {
    CHECK(t.factors.size() == 2);
    CHECK(std::count_if(t.factors.begin(), t.factors.end(),
                        [](const TapeFactor& f) { return f.inverse; }) == 1);
  }
  // A product of two tapes and a function of one.
  CHECK_FALSE(outs[6].linear);
}

TEST_CASE("the terms recompose every linear output's value at random data") {
  const Kernel k = test::tape_kernel(true);
  const TapePattern p = tape_pattern(k);
  const std::vector<TapeLinearOutput> outs = tape_linear_outputs(k, p);
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 5; ++trial) {
    const auto [x, c] = test::random_point(k, rng);
    const std::vector<double> v = test::node_values(k, x, c);
    for (size_t o = 0; o < outs.size(); ++o) {
      if (!outs[o].linear) continue;
      const double want = v[size_t(k.outputs()[o])];
      CAPTURE(o);
      CHECK(std::abs(recomposed(outs[o], p, v) - want) <= 1e-13 * std::max(1.0, std::abs(want)));
    }
  }
}

TEST_CASE("without tapes every output is linear with no terms: its rest is itself") {
  const Kernel k = test::tape_kernel(false);
  const TapePattern p = tape_pattern(k);
  for (const TapeLinearOutput& o : tape_linear_outputs(k, p)) {
    CHECK(o.linear);
    CHECK(o.terms.empty());
    REQUIRE(o.rest.size() == 1);
    CHECK(o.rest[0].scale == 1.0);
  }
}

TEST_CASE("a tape under a cut or a select is not linear") {
  const Kernel k("tape_linear_refusals", [](KernelBuilder& kb) {
    auto x = kb.input("x", 2);
    const Expr q = tape(x[0] * x[1]);
    kb.output("y", std::vector<Expr>{cut(2.0 * q), select(x[0], q, x[1]), 3.0 * q - x[0] / x[1]});
  });
  const std::vector<TapeLinearOutput> outs = tape_linear_outputs(k, tape_pattern(k));
  CHECK_FALSE(outs[0].linear);
  CHECK_FALSE(outs[1].linear);
  REQUIRE(outs[2].linear);
  REQUIRE(outs[2].terms.size() == 1);
  CHECK(outs[2].terms[0].scale == 3.0);
  REQUIRE(outs[2].rest.size() == 1);
  CHECK(outs[2].rest[0].scale == -1.0);
}
