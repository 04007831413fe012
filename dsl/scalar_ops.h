// Values of each op on plain scalars: double (constant folding, reference evaluator) and
// std::complex<double> (complex-step derivative checks in tests). Non-analytic ops act on
// the real part so that the complex step follows the branch the real input takes.
#pragma once

#include <cmath>
#include <complex>
#include <stdexcept>
#include <string>

#include "dsl/op.h"

namespace dualjit {

inline double real_part(double x) {
  return x;
}
inline double real_part(const std::complex<double>& z) {
  return z.real();
}

template <class T>
T eval_scalar_op(Op op, const T& a, const T& b, const T& c) {
  using std::abs, std::atan, std::cos, std::cosh, std::exp, std::log, std::log10, std::pow,
      std::sin, std::sinh, std::sqrt, std::tan, std::tanh;
  const double ar = real_part(a), br = real_part(b);
  switch (op) {
    case Op::Add:
      return a + b;
    case Op::Sub:
      return a - b;
    case Op::Mul:
      return a * b;
    case Op::Div:
      return a / b;
    case Op::Neg:
      return -a;
    case Op::Cut:
    case Op::Tape:
      return a;
    case Op::Sqrt:
      return sqrt(a);
    case Op::Cbrt:
      if constexpr (std::is_same_v<T, double>) {
        return std::cbrt(a);
      } else {
        // Real cube root continued analytically: sign(a) * |a|^(1/3).
        return ar < 0 ? -pow(-a, 1.0 / 3.0) : pow(a, 1.0 / 3.0);
      }
    case Op::Exp:
      return exp(a);
    case Op::Log:
      return log(a);
    case Op::Log10:
      return log10(a);
    case Op::Sin:
      return sin(a);
    case Op::Cos:
      return cos(a);
    case Op::Tan:
      return tan(a);
    case Op::Atan:
      return atan(a);
    case Op::Tanh:
      return tanh(a);
    case Op::Sinh:
      return sinh(a);
    case Op::Cosh:
      return cosh(a);
    case Op::Pow:
      return pow(a, b);
    case Op::Atan2:
      if constexpr (std::is_same_v<T, double>) {
        return std::atan2(a, b);
      } else {
        // atan2(y, x) = atan(y / x) + branch constant; the constant has no derivative.
        const double branch = std::atan2(ar, br) - std::atan(ar / br);
        return atan(a / b) + T(branch);
      }
    case Op::Abs:
      return ar < 0 ? -a : a;
    case Op::Sign:
      return T(ar > 0 ? 1.0 : (ar < 0 ? -1.0 : 0.0));
    case Op::Min:
      return ar <= br ? a : b;
    case Op::Max:
      return ar >= br ? a : b;
    case Op::Lt:
      return T(ar < br ? 1.0 : 0.0);
    case Op::Le:
      return T(ar <= br ? 1.0 : 0.0);
    case Op::Gt:
      return T(ar > br ? 1.0 : 0.0);
    case Op::Ge:
      return T(ar >= br ? 1.0 : 0.0);
    case Op::Eq:
      return T(ar == br ? 1.0 : 0.0);
    case Op::Ne:
      return T(ar != br ? 1.0 : 0.0);
    case Op::Select:
      return ar != 0 ? b : c;
    default:
      break;
  }
  throw std::logic_error("eval_scalar_op: op '" + std::string(op_name(op)) +
                         "' is a leaf and has no value rule");
}

}  // namespace dualjit
