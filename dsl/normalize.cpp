#include "dsl/normalize.h"

#include <cmath>
#include <utility>

namespace dualjit {
namespace {

// Scaling by a power of two only changes the exponent, so it commutes with rounding.
bool power_of_two(double v) {
  int e = 0;
  return std::isnormal(v) && std::fabs(std::frexp(v, &e)) == 0.5;
}

class Normalizer {
 public:
  explicit Normalizer(Graph& g) : g_(g) {}

  NodeId run(Op op, NodeId a, NodeId b, NodeId c) {
    switch (op) {
      case Op::Add:
        return add(a, b);
      case Op::Sub:
        return sub(a, b);
      case Op::Mul:
        return mul(a, b);
      case Op::Div:
        return div(a, b);
      case Op::Select:
        // select(c, -a, -b) -> -select(c, a, b)
        if (is_neg(b) && is_neg(c)) return make(Op::Neg, make(Op::Select, a, arg(b), arg(c)));
        return kNoNode;
      case Op::Abs:
        if (is_neg(a)) return make(Op::Abs, arg(a));
        return kNoNode;
      default:
        return kNoNode;
    }
  }

 private:
  const Node& node(NodeId id) const { return g_.node(id); }
  bool is_neg(NodeId id) const { return node(id).op == Op::Neg; }
  bool is_const(NodeId id) const { return node(id).op == Op::Const; }
  // A non-zero negative constant: its sign can move like a negation's.
  bool is_negative_const(NodeId id) const { return is_const(id) && node(id).value < 0.0; }
  double value(NodeId id) const { return node(id).value; }
  NodeId arg(NodeId id) const { return node(id).a; }
  NodeId make(Op op, NodeId a, NodeId b = kNoNode, NodeId c = kNoNode) {
    return g_.make(op, a, b, c);
  }
  NodeId constant(double v) { return g_.constant(v); }

  NodeId add(NodeId a, NodeId b) {
    if (is_neg(a) && is_neg(b)) return make(Op::Neg, make(Op::Add, arg(a), arg(b)));
    if (is_neg(b)) return make(Op::Sub, a, arg(b));
    if (is_neg(a)) return make(Op::Sub, b, arg(a));
    if (is_negative_const(b)) return make(Op::Sub, a, constant(-value(b)));
    if (is_negative_const(a)) return make(Op::Sub, b, constant(-value(a)));
    if (a == b) return make(Op::Mul, constant(2.0), a);  // exact, and shared with 2 * a
    return kNoNode;
  }

  NodeId sub(NodeId a, NodeId b) {
    if (is_neg(a) && is_neg(b)) return make(Op::Sub, arg(b), arg(a));
    if (is_neg(b)) return make(Op::Add, a, arg(b));
    if (is_negative_const(b)) return make(Op::Add, a, constant(-value(b)));
    if (is_neg(a)) return make(Op::Neg, make(Op::Add, arg(a), b));
    return kNoNode;
  }

  NodeId mul(NodeId a, NodeId b) {
    if (is_neg(a) && is_neg(b)) return make(Op::Mul, arg(a), arg(b));
    if (is_neg(a)) return make(Op::Neg, make(Op::Mul, arg(a), b));
    if (is_neg(b)) return make(Op::Neg, make(Op::Mul, a, arg(b)));
    if (is_const(a)) return scale(value(a), b);
    if (is_const(b)) return scale(value(b), a);
    return kNoNode;
  }

  // k * x with k constant: k * (k2 * y) -> (k k2) * y when that rounds the same.
  NodeId scale(double k, NodeId x) {
    const Node& n = node(x);
    if (n.op != Op::Mul || !(is_const(n.a) || is_const(n.b))) return kNoNode;
    const bool first = is_const(n.a);
    const double k2 = value(first ? n.a : n.b);
    const double kk = k * k2;
    if (!(power_of_two(k) || power_of_two(k2)) || !std::isnormal(kk)) return kNoNode;
    return make(Op::Mul, constant(kk), first ? n.b : n.a);
  }

  NodeId div(NodeId a, NodeId b) {
    if (is_const(b)) {
      const double k = value(b);
      // x / 2^k and x * 2^-k round the same real number.
      if (power_of_two(k) && std::isnormal(1.0 / k)) return make(Op::Mul, a, constant(1.0 / k));
    }
    if (is_neg(a) && is_neg(b)) return make(Op::Div, arg(a), arg(b));
    if (is_neg(a)) return make(Op::Neg, make(Op::Div, arg(a), b));
    if (is_neg(b)) return make(Op::Neg, make(Op::Div, a, arg(b)));
    return kNoNode;
  }

  Graph& g_;
};

}  // namespace

NodeId normalized(Graph& g, Op op, NodeId a, NodeId b, NodeId c) {
  return Normalizer(g).run(op, a, b, c);
}

}  // namespace dualjit
