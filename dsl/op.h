// Node kinds of the expression graph, defined once: printer, hash, evaluator and code
// emitter all read this table, so they cannot drift apart.
#pragma once

#include <cstdint>
#include <string_view>

namespace dualjit {

enum class Op : uint8_t {
  // Leaves.
  Const,    // value
  Input,    // active input: slot, index (derivatives are taken with respect to these)
  Param,    // per-element passive data: slot, index
  Uniform,  // per-launch runtime scalar: slot
  // Arithmetic.
  Add,
  Sub,
  Mul,
  Div,
  Neg,
  // Analytic functions of one argument.
  Sqrt,
  Cbrt,
  Exp,
  Log,
  Log10,
  Sin,
  Cos,
  Tan,
  Atan,
  Tanh,
  Sinh,
  Cosh,
  // Analytic functions of two arguments.
  Pow,
  Atan2,
  // Non-smooth: derivative conventions in dsl/derivative_rules.h.
  Abs,
  Sign,
  Min,
  Max,
  // Comparisons yield 1.0 or 0.0 and have zero derivative.
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  Select,  // select(cond, a, b): a where cond != 0, else b
  // The identity, marking an intermediate that first derivatives are taken through (dsl/expr.h
  // cut()). Last: op ids enter kernel hashes, so appending keeps every cached kernel's key.
  Cut,
  // The identity, marking an intermediate whose value and tangent a Jacobian computes once per
  // element and reads back (dsl/expr.h tape()).
  Tape,
  Count_
};

inline constexpr int kOpCount = static_cast<int>(Op::Count_);

enum class OpClass : uint8_t { Leaf, Linear, Analytic, Piecewise, Comparison, Selection };

struct OpInfo {
  std::string_view name;    // for dumps and error messages
  std::string_view c_name;  // spelling in emitted C (function name or operator)
  int arity;
  bool commutative;
  OpClass cls;
};

const OpInfo& op_info(Op op);
inline std::string_view op_name(Op op) {
  return op_info(op).name;
}
inline int op_arity(Op op) {
  return op_info(op).arity;
}
bool is_leaf(Op op);
// True when the op's output carries no derivative (comparisons, sign).
bool has_zero_derivative(Op op);

}  // namespace dualjit
