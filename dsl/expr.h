// Expr: a handle to a node of a Graph. C++ operators and math functions add nodes, so
// building an expression is ordinary C++: loops and helper functions unroll into the graph.
#pragma once

#include "dsl/graph.h"

namespace dualjit {

class Expr {
 public:
  Expr() = default;
  Expr(Graph* graph, NodeId id) : graph_(graph), id_(id) {}

  Graph* graph() const { return graph_; }
  NodeId id() const { return id_; }
  bool valid() const { return graph_ != nullptr && id_ != kNoNode; }
  const Node& node() const;

  // A constant in this expression's graph.
  Expr constant(double value) const;

  Expr& operator+=(const Expr& o);
  Expr& operator-=(const Expr& o);
  Expr& operator*=(const Expr& o);
  Expr& operator/=(const Expr& o);
  Expr& operator+=(double o);
  Expr& operator-=(double o);
  Expr& operator*=(double o);
  Expr& operator/=(double o);

 private:
  Graph* graph_ = nullptr;
  NodeId id_ = kNoNode;
};

// Generic node construction with graph checks; the operators below are spelled with it.
Expr apply(Op op, const Expr& a);
Expr apply(Op op, const Expr& a, const Expr& b);
Expr apply(Op op, const Expr& a, const Expr& b, const Expr& c);

Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
Expr operator/(const Expr& a, const Expr& b);
Expr operator-(const Expr& a);
Expr operator+(const Expr& a, double b);
Expr operator-(const Expr& a, double b);
Expr operator*(const Expr& a, double b);
Expr operator/(const Expr& a, double b);
Expr operator+(double a, const Expr& b);
Expr operator-(double a, const Expr& b);
Expr operator*(double a, const Expr& b);
Expr operator/(double a, const Expr& b);

// Comparisons yield 1 or 0 (use with select); they carry no derivative.
Expr operator<(const Expr& a, const Expr& b);
Expr operator<=(const Expr& a, const Expr& b);
Expr operator>(const Expr& a, const Expr& b);
Expr operator>=(const Expr& a, const Expr& b);
Expr operator<(const Expr& a, double b);
Expr operator<=(const Expr& a, double b);
Expr operator>(const Expr& a, double b);
Expr operator>=(const Expr& a, double b);
Expr eq(const Expr& a, const Expr& b);
Expr ne(const Expr& a, const Expr& b);

Expr sqrt(const Expr& x);
Expr cbrt(const Expr& x);
Expr exp(const Expr& x);
Expr log(const Expr& x);
Expr log10(const Expr& x);
Expr sin(const Expr& x);
Expr cos(const Expr& x);
Expr tan(const Expr& x);
Expr atan(const Expr& x);
Expr atan2(const Expr& y, const Expr& x);
Expr tanh(const Expr& x);
Expr sinh(const Expr& x);
Expr cosh(const Expr& x);
// pow with an integer constant exponent expands into multiplications (and one division for
// negative exponents); 0.5 becomes sqrt.
Expr pow(const Expr& x, double exponent);
Expr pow(const Expr& x, const Expr& exponent);
Expr pow(double base, const Expr& exponent);

// Non-smooth functions. Derivative conventions: abs'(x) = sign(x), so abs'(0) = 0;
// sign' = 0; min and max take the derivative of the argument they return, the first one
// on ties; select takes the derivative of the chosen branch.
Expr abs(const Expr& x);
Expr sign(const Expr& x);
Expr min(const Expr& a, const Expr& b);
Expr max(const Expr& a, const Expr& b);
Expr select(const Expr& cond, const Expr& if_true, const Expr& if_false);
// x itself, marked as an intermediate that first derivatives (Jacobian, gradient) are taken
// through: the JIT gives x a direction of its own, so everything computed from x carries one
// tangent component for x instead of x's many, and composes d/dx with x's own tangent at the
// outputs. Exact either way; worth it where a quantity of every input (a density, a mean molar
// mass, a total) enters every output, which would otherwise make every tangent dense.
// Second-order modes take derivatives straight through.
Expr cut(const Expr& x);
// The identity, marking x as an intermediate that many outputs share and whose tangent is
// sparse (a reaction's rate of progress, which every species of the reaction reads): a
// first-order Jacobian of the element-local driver computes every tape's value and tangent
// once per element in a chunk of its own, stores them, and the chunks of the outputs read
// them back instead of recomputing x in each row group (jit/tape_pattern.h). Other modes and
// drivers take derivatives straight through.
Expr tape(const Expr& x);
Expr select(const Expr& cond, const Expr& if_true, double if_false);
Expr select(const Expr& cond, double if_true, const Expr& if_false);

}  // namespace dualjit
