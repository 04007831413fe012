// Hash-consing, folding, identity removal, and a property test that simplification never
// changes what a graph computes.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "dsl/printer.h"
#include "dsl/reference_evaluator.h"
#include "support/random_kernel.h"

using namespace dualjit;

TEST_CASE("building the same subexpression twice yields the same node") {
  Graph g("k");
  const Expr x(&g, g.leaf(Op::Input, 0, 0)), y(&g, g.leaf(Op::Input, 0, 1));
  const Expr a = sin(x * y) + x, b = sin(x * y) + x;
  CHECK(a.id() == b.id());
  CHECK((x * y).id() == (y * x).id());  // commutative operands are canonically ordered
  CHECK((x - y).id() != (y - x).id());
  const size_t before = g.size();
  (void)(sin(x * y) + x);
  CHECK(g.size() == before);
}

TEST_CASE("constant folding and identities") {
  Graph g("k");
  const Expr x(&g, g.leaf(Op::Input, 0, 0));
  const Expr two = x.constant(2.0);
  CHECK((two * 3.0).node().op == Op::Const);
  CHECK((two * 3.0).node().value == 6.0);
  CHECK(sqrt(x.constant(9.0)).node().value == 3.0);
  CHECK((x + 0.0).id() == x.id());
  CHECK((0.0 + x).id() == x.id());
  CHECK((x * 1.0).id() == x.id());
  CHECK((1.0 * x).id() == x.id());
  CHECK((x * 0.0).node().value == 0.0);
  CHECK((x - x).node().op == Op::Const);
  CHECK((-(-x)).id() == x.id());
  CHECK((x / 1.0).id() == x.id());
  CHECK((x - 0.0).id() == x.id());
  CHECK((0.0 - x).node().op == Op::Neg);
  CHECK(select(x.constant(1.0), x, two).id() == x.id());
  CHECK(min(x, x).id() == x.id());
  // A fold that would produce NaN stays a node, so run time sees the same NaN.
  CHECK(log(x.constant(-1.0)).node().op == Op::Log);
  // Integer powers expand.
  CHECK(pow(x, 3.0).node().op == Op::Mul);
  CHECK(pow(x, -2.0).node().op == Op::Div);
  CHECK(pow(x, 0.0).node().value == 1.0);
  CHECK(pow(x, 2.5).node().op == Op::Pow);
  // 0.0 and -0.0 are different constants (1/x tells them apart).
  CHECK(x.constant(0.0).id() != x.constant(-0.0).id());
}

TEST_CASE("simplification off keeps every node") {
  Graph g("k", GraphOptions{.simplify = false});
  const Expr x(&g, g.leaf(Op::Input, 0, 0));
  CHECK((x * 1.0).node().op == Op::Mul);
  CHECK((x + 0.0).node().op == Op::Add);
  CHECK((x.constant(2.0) * 3.0).node().op == Op::Mul);
}

TEST_CASE("graph misuse raises DslError naming the kernel") {
  Graph g1("alpha"), g2("beta");
  const Expr a(&g1, g1.leaf(Op::Input, 0, 0)), b(&g2, g2.leaf(Op::Input, 0, 0));
  CHECK_THROWS_WITH_AS(a + b, doctest::Contains("alpha"), DslError);
  CHECK_THROWS_WITH_AS(a + b, doctest::Contains("beta"), DslError);
  CHECK_THROWS_AS(a.constant(NAN), DslError);
  CHECK_THROWS_WITH_AS(a * INFINITY, doctest::Contains("non-finite"), DslError);
  CHECK_THROWS_AS(a + Expr(), DslError);
  CHECK_THROWS_AS(g1.make(Op::Add, 0, 99), DslError);
}

TEST_CASE("printer shows ops, leaves and constants") {
  Graph g("k");
  const Expr x(&g, g.leaf(Op::Input, 0, 1));
  const Expr y = sin(x) * 2.5;
  const std::string s = print_graph(g);
  CHECK(s.find("input 0[1]") != std::string::npos);
  CHECK(s.find("sin %0") != std::string::npos);
  CHECK(s.find("const 2.5") != std::string::npos);
  CHECK(print_node(g, y.id()).find("mul") != std::string::npos);
}

namespace {

// Nodes the outputs are computed from, constants aside (they are literals in emitted code):
// what emitted code evaluates. Rewrites may leave unreached nodes behind in the graph.
size_t reached_nodes(const Kernel& k) {
  const Graph& g = k.graph();
  std::vector<uint8_t> seen(g.size(), 0);
  std::vector<NodeId> stack = k.outputs();
  size_t n = 0;
  while (!stack.empty()) {
    const NodeId id = stack.back();
    stack.pop_back();
    if (seen[id]) continue;
    seen[id] = 1;
    const Node& nd = g.node(id);
    n += nd.op != Op::Const;
    for (int i = 0; i < op_arity(nd.op); ++i) stack.push_back(nd.operand(i));
  }
  return n;
}

}  // namespace

TEST_CASE("property: simplification is sound on random graphs") {
  std::mt19937_64 rng(7);
  int compared = 0;
  size_t simplified_nodes = 0, raw_nodes = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    test::RandomKernelOptions o;
    o.seed = seed;
    o.n_nodes = 30 + static_cast<int>(seed % 40);
    o.smooth_only = seed % 2 == 0;
    const Kernel simplified = test::random_kernel(o);
    o.graph.simplify = false;
    const Kernel raw = test::random_kernel(o);
    const size_t s_nodes = reached_nodes(simplified), r_nodes = reached_nodes(raw);
    CHECK(s_nodes <= r_nodes);
    simplified_nodes += s_nodes;
    raw_nodes += r_nodes;
    for (int trial = 0; trial < 5; ++trial) {
      const auto x = test::random_vector(o.n_inputs, rng);
      const auto p = test::random_vector(o.n_params, rng);
      const auto u = test::random_vector(o.n_uniforms, rng);
      const auto a = evaluate_values(simplified, {x, p, u});
      const auto b = evaluate_values(raw, {x, p, u});
      REQUIRE(a.size() == b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        REQUIRE(std::isfinite(b[i]));
        CHECK(a[i] == doctest::Approx(b[i]).epsilon(1e-12));
        ++compared;
      }
    }
  }
  CHECK(compared == 600);
  MESSAGE("reached nodes, simplified " << simplified_nodes << ", raw " << raw_nodes);
  CHECK(simplified_nodes < raw_nodes);
}
