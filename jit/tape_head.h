// A factored tape's head (jit/tape_pattern.h): the polynomial ops between its operand and
// the leaves whose values the tape chunk stores, and the derivative a reader takes through them.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "dsl/graph.h"

namespace dualjit::jit {

// A component: d operand / d input, or d operand / d (the cut's own direction).
struct TapeEntry {
  int input = -1;        // flat input index, or -1
  NodeId cut = kNoNode;  // the cut's node in the kernel's graph, when input < 0
  bool operator==(const TapeEntry&) const = default;
};

// An op of a factored tape's head; operands are earlier ops of the same head.
struct HeadOp {
  enum class Kind : uint8_t { Leaf, Constant, Add, Sub, Mul, Div, Neg };
  Kind kind = Kind::Constant;
  int a = -1, b = -1;  // Div: b does not depend on a derived direction
  int leaf = -1;       // Leaf: index into TapePattern::leaves
  double value = 0.0;  // Constant
};

// A component a reader derives: the direction, and the leaf that is its input or cut.
struct TapeDerived {
  TapeEntry direction;
  int leaf = -1;
};

struct TapeHead {
  std::vector<HeadOp> ops;  // the last is the tape's operand; empty: every component stored
  std::vector<TapeDerived> derived;
  bool factored() const { return !ops.empty(); }
};

// d operand / d leaf `wrt` of a factored tape, forward through its head from the leaves'
// values: an Algebra has a type Value and leaf(i), constant(c), add, sub, mul, div and neg
// (a graph's nodes, a program's text, doubles). Structural zeros make nothing; values are made
// once each, where first needed.
template <class Algebra>
typename Algebra::Value head_derivative(const TapeHead& h, int wrt, Algebra& A) {
  using V = typename Algebra::Value;
  struct D {
    bool zero = true, one = false;
    V v{};
  };
  const size_t n = h.ops.size();
  std::vector<std::optional<V>> value(n);
  const auto val = [&](int i) -> V {
    std::vector<int> stack{i};
    while (!stack.empty()) {  // operands first, without recursion
      const int j = stack.back();
      if (value[size_t(j)]) {
        stack.pop_back();
        continue;
      }
      const HeadOp& op = h.ops[size_t(j)];
      bool ready = true;
      for (int k : {op.a, op.b})
        if (k >= 0 && !value[size_t(k)]) stack.push_back(k), ready = false;
      if (!ready) continue;
      stack.pop_back();
      switch (op.kind) {
        case HeadOp::Kind::Leaf:
          value[size_t(j)] = A.leaf(op.leaf);
          break;
        case HeadOp::Kind::Constant:
          value[size_t(j)] = A.constant(op.value);
          break;
        case HeadOp::Kind::Add:
          value[size_t(j)] = A.add(*value[size_t(op.a)], *value[size_t(op.b)]);
          break;
        case HeadOp::Kind::Sub:
          value[size_t(j)] = A.sub(*value[size_t(op.a)], *value[size_t(op.b)]);
          break;
        case HeadOp::Kind::Mul:
          value[size_t(j)] = A.mul(*value[size_t(op.a)], *value[size_t(op.b)]);
          break;
        case HeadOp::Kind::Div:
          value[size_t(j)] = A.div(*value[size_t(op.a)], *value[size_t(op.b)]);
          break;
        case HeadOp::Kind::Neg:
          value[size_t(j)] = A.neg(*value[size_t(op.a)]);
          break;
      }
    }
    return *value[size_t(i)];
  };
  const auto materialize = [&A](const D& d) { return d.one ? A.constant(1.0) : d.v; };
  std::vector<D> d(n);
  for (size_t i = 0; i < n; ++i) {
    const HeadOp& op = h.ops[i];
    D& r = d[i];
    const D* x = op.a >= 0 ? &d[size_t(op.a)] : nullptr;
    const D* y = op.b >= 0 ? &d[size_t(op.b)] : nullptr;
    switch (op.kind) {
      case HeadOp::Kind::Leaf:
        if (op.leaf == wrt) r.zero = false, r.one = true;
        break;
      case HeadOp::Kind::Constant:
        break;
      case HeadOp::Kind::Add:
      case HeadOp::Kind::Sub:
        if (x->zero && y->zero) break;
        r.zero = false;
        if (y->zero) {
          r.one = x->one, r.v = x->v;
        } else if (x->zero) {
          r.v = op.kind == HeadOp::Kind::Add ? materialize(*y) : A.neg(materialize(*y));
        } else {
          r.v = op.kind == HeadOp::Kind::Add ? A.add(materialize(*x), materialize(*y))
                                             : A.sub(materialize(*x), materialize(*y));
        }
        break;
      case HeadOp::Kind::Mul: {
        if (x->zero && y->zero) break;
        r.zero = false;
        const auto term = [&](const D& dd, int other) {
          return dd.one ? val(other) : A.mul(dd.v, val(other));
        };
        if (y->zero) {
          r.v = term(*x, op.b);
        } else if (x->zero) {
          r.v = term(*y, op.a);
        } else {
          r.v = A.add(term(*x, op.b), term(*y, op.a));
        }
        break;
      }
      case HeadOp::Kind::Div:
        if (!y->zero) throw std::logic_error("a tape head divides by a derived direction");
        if (x->zero) break;
        r.zero = false;
        r.v = A.div(materialize(*x), val(op.b));
        break;
      case HeadOp::Kind::Neg:
        if (x->zero) break;
        r.zero = false;
        r.v = A.neg(materialize(*x));
        break;
    }
  }
  const D& last = d.back();
  if (last.zero) return A.constant(0.0);
  return materialize(last);
}

}  // namespace dualjit::jit
