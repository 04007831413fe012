// Normalisation (dsl/normalize.h): each rewrite as a graph before and after, and the
// normalised kernel computing the same bits as the unsimplified one on random inputs.
#include <doctest/doctest.h>

#include <bit>
#include <random>

#include "dsl/reference_evaluator.h"
#include "support/random_kernel.h"
#include "support/test_kernels.h"

using namespace dualjit;

namespace {

struct Leaves {
  Graph g{"k"};
  Expr a{&g, g.leaf(Op::Input, 0, 0)}, b{&g, g.leaf(Op::Input, 0, 1)},
      c{&g, g.leaf(Op::Input, 0, 2)};
};

bool is(const Expr& e, Op op, const Expr& x) {
  return e.node().op == op && e.node().a == x.id();
}
// Operands of commutative ops in either order (the graph orders them by id).
bool is(const Expr& e, Op op, const Expr& x, const Expr& y) {
  const Node& n = e.node();
  if (n.op != op) return false;
  if (n.a == x.id() && n.b == y.id()) return true;
  return op_info(op).commutative && n.a == y.id() && n.b == x.id();
}

}  // namespace

TEST_CASE("negations move outward to the consumer that absorbs them") {
  Leaves l;
  const Expr &a = l.a, &b = l.b;
  CHECK((a + -b).id() == (a - b).id());
  CHECK((-a + b).id() == (b - a).id());
  CHECK((a - -b).id() == (a + b).id());
  CHECK((-a - -b).id() == (b - a).id());
  CHECK(is(-a + -b, Op::Neg, a + b));
  CHECK(is(-a - b, Op::Neg, a + b));
  CHECK(is(-a * b, Op::Neg, a * b));
  CHECK(is(a * -b, Op::Neg, a * b));
  CHECK((-a * -b).id() == (a * b).id());
  CHECK(is(-a / b, Op::Neg, a / b));
  CHECK(is(a / -b, Op::Neg, a / b));
  CHECK((-a / -b).id() == (a / b).id());
  CHECK((-(-a)).id() == a.id());
  CHECK(is(select(l.c, -a, -b), Op::Neg, select(l.c, a, b)));
  CHECK(abs(-a).id() == abs(a).id());
  // A negative constant term becomes a subtraction, and back.
  CHECK(is(a + (-2.0), Op::Sub, a, a.constant(2.0)));
  CHECK(is(a - (-2.0), Op::Add, a, a.constant(2.0)));
  // The Roe Jacobian's t15 = -t9; t16 = t15 + t15 beside t14 = t9 + t9: one negation of t14.
  const Expr t14 = a + a, t15 = -a, t16 = t15 + t15;
  CHECK(is(t16, Op::Neg, t14));
  // What no consumer absorbs stays one shared node: a negated product, a one-sided select.
  CHECK((-a * b).id() == (a * -b).id());
  CHECK(select(l.c, -a, b).node().b == (-a).id());
}

TEST_CASE("constant factors combine exactly; others stay") {
  Leaves l;
  const Expr& a = l.a;
  CHECK((a * 1.0).id() == a.id());
  CHECK((a * -1.0).id() == (-a).id());
  CHECK(is(a + a, Op::Mul, a.constant(2.0), a));  // one spelling of 2a, shared
  CHECK((a + a).id() == (2.0 * a).id());
  CHECK((0.5 * (a + a)).id() == a.id());
  CHECK(is(3.0 * (2.0 * a), Op::Mul, a.constant(6.0), a));
  CHECK(is(0.25 * (3.0 * a), Op::Mul, a.constant(0.75), a));
  CHECK(is(-2.0 * (0.5 * a), Op::Neg, a));  // (-1) a
  // 3 (3 a) rounds twice; 9 a once: not the same double, so not combined.
  const Expr three_a = 3.0 * a;
  CHECK(is(3.0 * three_a, Op::Mul, three_a, a.constant(3.0)));
  // Division by a power of two is the multiplication by its inverse; by 3 it stays.
  CHECK(is(a / 4.0, Op::Mul, a, a.constant(0.25)));
  CHECK((a / 3.0).node().op == Op::Div);
  CHECK((0.5 * (a / 0.5)).id() == a.id());
}

TEST_CASE("normalisation is off with simplification") {
  Graph g("k", GraphOptions{.simplify = false});
  const Expr a(&g, g.leaf(Op::Input, 0, 0)), b(&g, g.leaf(Op::Input, 0, 1));
  CHECK((a + -b).node().op == Op::Add);
  CHECK((a + a).node().op == Op::Add);
  CHECK((a / 4.0).node().op == Op::Div);
}

TEST_CASE("normalised kernels compute the same bits as unsimplified ones on random inputs") {
  const Kernel norm = test::negations_kernel(), raw = test::negations_kernel({.simplify = false});
  std::mt19937_64 rng(11);
  int compared = 0;
  for (int trial = 0; trial < 50; ++trial) {
    // Never at zero: |x| in [0.1, 1] with a random sign.
    auto x = test::random_vector(4, rng, 0.1, 1.0);
    for (double& xi : x) xi = rng() % 2 ? xi : -xi;
    const auto p = test::random_vector(1, rng, 0.1, 1.0);
    const std::vector<double> u = {0.7};
    const ElementArgs args{x, p, u};
    const auto vn = evaluate_values(norm, args), vr = evaluate_values(raw, args);
    REQUIRE(vn.size() == vr.size());
    for (size_t i = 0; i < vn.size(); ++i) {
      CAPTURE(i);
      CHECK(std::bit_cast<uint64_t>(vn[i]) == std::bit_cast<uint64_t>(vr[i]));
      ++compared;
    }
    const auto jn = evaluate_jacobian(norm, args, 4), jr = evaluate_jacobian(raw, args, 4);
    for (size_t i = 0; i < jn.jacobian.size(); ++i) {
      CAPTURE(i);
      CHECK(jn.jacobian[i] == doctest::Approx(jr.jacobian[i]).epsilon(1e-14));
    }
  }
  CHECK(compared == 50 * 16);
}
