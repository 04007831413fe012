// Local partial derivatives of each analytic op, written once for any scalar type T that has
// arithmetic with double and the math functions (double, Dual<T>, Expr). `v` is the op's own
// value, reused where the derivative is a function of it (exp, sqrt, tanh).
//
// Ops outside OpClass::Analytic are handled by the callers: Linear ops (add, sub, neg) add
// tangents directly; Selection ops (min, max, select) take the whole derivative of the
// chosen operand (first on ties); abs multiplies by sign (abs'(0) = 0); comparisons and sign
// have no derivative.
#pragma once

#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "dsl/op.h"

namespace dualjit {

// Partials with respect to operands a and b; `need` says which are wanted, so that, for
// example, pow(x, c) never forms log(x) when the exponent carries no derivative.
template <class T>
std::array<T, 2> first_partials(Op op, const T& a, const T& b, const T& v,
                                std::array<bool, 2> need) {
  using std::cos, std::cosh, std::log, std::pow, std::sin, std::sinh;
  switch (op) {
    case Op::Mul:
      return {b, a};
    case Op::Div: {
      const T r = 1.0 / b;
      return {r, need[1] ? -v * r : T()};
    }
    case Op::Sqrt:
      return {0.5 / v, T()};
    case Op::Cbrt:
      return {(1.0 / 3.0) / (v * v), T()};
    case Op::Exp:
      return {v, T()};
    case Op::Log:
      return {1.0 / a, T()};
    case Op::Log10:
      return {(1.0 / std::numbers::ln10) / a, T()};
    case Op::Sin:
      return {cos(a), T()};
    case Op::Cos:
      return {-sin(a), T()};
    case Op::Tan:
      return {1.0 + v * v, T()};
    case Op::Atan:
      return {1.0 / (1.0 + a * a), T()};
    case Op::Tanh:
      return {1.0 - v * v, T()};
    case Op::Sinh:
      return {cosh(a), T()};
    case Op::Cosh:
      return {sinh(a), T()};
    case Op::Pow:
      return {need[0] ? b * pow(a, b - 1.0) : T(), need[1] ? v * log(a) : T()};
    case Op::Atan2: {
      const T r = 1.0 / (a * a + b * b);
      return {need[0] ? b * r : T(), need[1] ? -(a * r) : T()};
    }
    default:
      break;
  }
  throw std::logic_error("first_partials: '" + std::string(op_name(op)) +
                         "' is not an analytic op");
}

// Second partials f_aa, f_ab, f_bb; `has` marks the structurally non-zero ones, and
// `ab_is_one` the product rule's f_ab = 1 (no multiplication needed).
template <class T>
struct SecondPartials {
  T aa, ab, bb;
  bool has_aa = false, has_ab = false, has_bb = false, ab_is_one = false;
};

// `fa`, `fb` are the first partials from first_partials (valid where needed).
template <class T>
SecondPartials<T> second_partials(Op op, const T& a, const T& b, const T& v, const T& fa,
                                  const T& fb, std::array<bool, 2> need) {
  using std::log, std::pow;
  SecondPartials<T> s;
  auto set_aa = [&](const T& x) { s.aa = x, s.has_aa = true; };
  switch (op) {
    case Op::Mul:
      if (need[0] && need[1]) s.has_ab = true, s.ab_is_one = true;
      return s;
    case Op::Div:
      // fa = 1/b, fb = -v/b: f_ab = -fa^2, f_bb = -2 fb fa.
      if (need[0] && need[1]) s.ab = -(fa * fa), s.has_ab = true;
      if (need[1]) s.bb = -2.0 * (fb * fa), s.has_bb = true;
      return s;
    case Op::Sqrt:
      set_aa(-(fa * fa) / v);
      return s;
    case Op::Cbrt:
      set_aa(-2.0 * (fa * fa) / v);
      return s;
    case Op::Exp:
      set_aa(v);
      return s;
    case Op::Log:
      set_aa(-(fa * fa));
      return s;
    case Op::Log10:
      set_aa(-fa / a);
      return s;
    case Op::Sin:
      set_aa(-v);
      return s;
    case Op::Cos:
      set_aa(-v);
      return s;
    case Op::Tan:
      set_aa(2.0 * (v * fa));
      return s;
    case Op::Atan:
      set_aa(-2.0 * (a * (fa * fa)));
      return s;
    case Op::Tanh:
      set_aa(-2.0 * (v * fa));
      return s;
    case Op::Sinh:
      set_aa(v);
      return s;
    case Op::Cosh:
      set_aa(v);
      return s;
    case Op::Pow:
      if (need[0]) set_aa(b * (b - 1.0) * pow(a, b - 2.0));
      if (need[0] && need[1]) s.ab = pow(a, b - 1.0) * (1.0 + b * log(a)), s.has_ab = true;
      if (need[1]) s.bb = fb * log(a), s.has_bb = true;
      return s;
    case Op::Atan2: {
      const T r = 1.0 / (a * a + b * b);
      const T r2 = r * r;
      const T two_ab_r2 = 2.0 * (a * b) * r2;
      if (need[0]) set_aa(-two_ab_r2);
      if (need[0] && need[1]) s.ab = (a * a - b * b) * r2, s.has_ab = true;
      if (need[1]) s.bb = two_ab_r2, s.has_bb = true;
      return s;
    }
    default:
      break;
  }
  throw std::logic_error("second_partials: '" + std::string(op_name(op)) +
                         "' is not an analytic op");
}

}  // namespace dualjit
