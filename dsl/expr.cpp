#include "dsl/expr.h"

#include <cmath>
#include <string>

namespace dualjit {
namespace {

void require_valid(Op op, const Expr& e) {
  if (!e.valid()) {
    throw DslError("operand of '" + std::string(op_name(op)) +
                   "' is an empty Expr (default-constructed or never assigned)");
  }
}

Graph* common_graph(Op op, const Expr& a, const Expr& b) {
  require_valid(op, a);
  require_valid(op, b);
  if (a.graph() != b.graph()) {
    throw DslError("'" + std::string(op_name(op)) + "' mixes nodes of two graphs: kernel '" +
                   a.graph()->label() + "' and kernel '" + b.graph()->label() + "'");
  }
  return a.graph();
}

}  // namespace

const Node& Expr::node() const {
  if (!valid()) throw DslError("node() of an empty Expr");
  return graph_->node(id_);
}

Expr Expr::constant(double value) const {
  if (graph_ == nullptr) throw DslError("constant() of an empty Expr");
  return Expr(graph_, graph_->constant(value));
}

Expr apply(Op op, const Expr& a) {
  require_valid(op, a);
  return Expr(a.graph(), a.graph()->make(op, a.id()));
}

Expr apply(Op op, const Expr& a, const Expr& b) {
  Graph* g = common_graph(op, a, b);
  return Expr(g, g->make(op, a.id(), b.id()));
}

Expr apply(Op op, const Expr& a, const Expr& b, const Expr& c) {
  Graph* g = common_graph(op, a, b);
  common_graph(op, a, c);
  return Expr(g, g->make(op, a.id(), b.id(), c.id()));
}

Expr& Expr::operator+=(const Expr& o) {
  return *this = *this + o;
}
Expr& Expr::operator-=(const Expr& o) {
  return *this = *this - o;
}
Expr& Expr::operator*=(const Expr& o) {
  return *this = *this * o;
}
Expr& Expr::operator/=(const Expr& o) {
  return *this = *this / o;
}
Expr& Expr::operator+=(double o) {
  return *this = *this + o;
}
Expr& Expr::operator-=(double o) {
  return *this = *this - o;
}
Expr& Expr::operator*=(double o) {
  return *this = *this * o;
}
Expr& Expr::operator/=(double o) {
  return *this = *this / o;
}

Expr operator+(const Expr& a, const Expr& b) {
  return apply(Op::Add, a, b);
}
Expr operator-(const Expr& a, const Expr& b) {
  return apply(Op::Sub, a, b);
}
Expr operator*(const Expr& a, const Expr& b) {
  return apply(Op::Mul, a, b);
}
Expr operator/(const Expr& a, const Expr& b) {
  return apply(Op::Div, a, b);
}
Expr operator-(const Expr& a) {
  return apply(Op::Neg, a);
}
Expr operator+(const Expr& a, double b) {
  return a + a.constant(b);
}
Expr operator-(const Expr& a, double b) {
  return a - a.constant(b);
}
Expr operator*(const Expr& a, double b) {
  return a * a.constant(b);
}
Expr operator/(const Expr& a, double b) {
  return a / a.constant(b);
}
Expr operator+(double a, const Expr& b) {
  return b.constant(a) + b;
}
Expr operator-(double a, const Expr& b) {
  return b.constant(a) - b;
}
Expr operator*(double a, const Expr& b) {
  return b.constant(a) * b;
}
Expr operator/(double a, const Expr& b) {
  return b.constant(a) / b;
}

Expr operator<(const Expr& a, const Expr& b) {
  return apply(Op::Lt, a, b);
}
Expr operator<=(const Expr& a, const Expr& b) {
  return apply(Op::Le, a, b);
}
Expr operator>(const Expr& a, const Expr& b) {
  return apply(Op::Gt, a, b);
}
Expr operator>=(const Expr& a, const Expr& b) {
  return apply(Op::Ge, a, b);
}
Expr operator<(const Expr& a, double b) {
  return a < a.constant(b);
}
Expr operator<=(const Expr& a, double b) {
  return a <= a.constant(b);
}
Expr operator>(const Expr& a, double b) {
  return a > a.constant(b);
}
Expr operator>=(const Expr& a, double b) {
  return a >= a.constant(b);
}
Expr eq(const Expr& a, const Expr& b) {
  return apply(Op::Eq, a, b);
}
Expr ne(const Expr& a, const Expr& b) {
  return apply(Op::Ne, a, b);
}

Expr sqrt(const Expr& x) {
  return apply(Op::Sqrt, x);
}
Expr cbrt(const Expr& x) {
  return apply(Op::Cbrt, x);
}
Expr exp(const Expr& x) {
  return apply(Op::Exp, x);
}
Expr log(const Expr& x) {
  return apply(Op::Log, x);
}
Expr log10(const Expr& x) {
  return apply(Op::Log10, x);
}
Expr sin(const Expr& x) {
  return apply(Op::Sin, x);
}
Expr cos(const Expr& x) {
  return apply(Op::Cos, x);
}
Expr tan(const Expr& x) {
  return apply(Op::Tan, x);
}
Expr atan(const Expr& x) {
  return apply(Op::Atan, x);
}
Expr atan2(const Expr& y, const Expr& x) {
  return apply(Op::Atan2, y, x);
}
Expr tanh(const Expr& x) {
  return apply(Op::Tanh, x);
}
Expr sinh(const Expr& x) {
  return apply(Op::Sinh, x);
}
Expr cosh(const Expr& x) {
  return apply(Op::Cosh, x);
}

Expr pow(const Expr& x, double exponent) {
  require_valid(Op::Pow, x);
  if (!std::isfinite(exponent)) {
    throw DslError("pow: non-finite exponent in kernel '" + x.graph()->label() + "'");
  }
  const double rounded = std::nearbyint(exponent);
  if (rounded == exponent && std::fabs(exponent) <= 64) {
    // Square-and-multiply: x^13 = x^8 * x^4 * x.
    auto n = static_cast<long>(std::fabs(exponent));
    if (n == 0) return x.constant(1.0);
    Expr result, base = x;
    while (n > 0) {
      if (n & 1) result = result.valid() ? result * base : base;
      n >>= 1;
      if (n > 0) base = base * base;
    }
    return exponent < 0 ? 1.0 / result : result;
  }
  if (exponent == 0.5) return sqrt(x);
  return apply(Op::Pow, x, x.constant(exponent));
}

Expr pow(const Expr& x, const Expr& exponent) {
  require_valid(Op::Pow, exponent);
  if (exponent.node().op == Op::Const) return pow(x, exponent.node().value);
  return apply(Op::Pow, x, exponent);
}

Expr pow(double base, const Expr& exponent) {
  return pow(exponent.constant(base), exponent);
}

Expr abs(const Expr& x) {
  return apply(Op::Abs, x);
}
Expr sign(const Expr& x) {
  return apply(Op::Sign, x);
}
Expr min(const Expr& a, const Expr& b) {
  return apply(Op::Min, a, b);
}
Expr max(const Expr& a, const Expr& b) {
  return apply(Op::Max, a, b);
}
Expr cut(const Expr& x) {
  return apply(Op::Cut, x);
}
Expr tape(const Expr& x) {
  return apply(Op::Tape, x);
}
Expr select(const Expr& cond, const Expr& if_true, const Expr& if_false) {
  return apply(Op::Select, cond, if_true, if_false);
}
Expr select(const Expr& cond, const Expr& if_true, double if_false) {
  return select(cond, if_true, cond.constant(if_false));
}
Expr select(const Expr& cond, double if_true, const Expr& if_false) {
  return select(cond, cond.constant(if_true), if_false);
}

}  // namespace dualjit
