// Multivariate dual numbers for the reference evaluator: a value and a sparse tangent (only
// the directions the value depends on are stored). Nesting Dual<Dual<double>> gives second
// derivatives (forward over forward). Deliberately plain: this is the ground truth.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "dsl/derivative_rules.h"
#include "dsl/op.h"
#include "dsl/scalar_ops.h"

namespace dualjit {

template <class T>
struct Dual {
  T v{};
  std::vector<std::pair<int32_t, T>> t;  // sorted by direction; absent means zero

  Dual() = default;
  Dual(double c) : v(c) {}  // NOLINT: constants convert implicitly, as in math
  Dual(const T& value, std::vector<std::pair<int32_t, T>> tangent)
      : v(value), t(std::move(tangent)) {}

  // Component of the tangent in direction d (zero when absent).
  T d(int32_t dir) const {
    for (const auto& [k, x] : t) {
      if (k == dir) return x;
    }
    return T(0.0);
  }
};

template <class T>
double real_part(const Dual<T>& x) {
  return real_part(x.v);
}

template <class T>
struct is_dual : std::false_type {};
template <class T>
struct is_dual<Dual<T>> : std::true_type {};

template <class T>
Dual<T> dual_op(Op op, const Dual<T>& a, const Dual<T>& b, const Dual<T>& c);

// The value of op on any scalar of the evaluator: plain, complex or dual.
template <class T>
T value_op(Op op, const T& a, const T& b, const T& c) {
  if constexpr (is_dual<T>::value) {
    return dual_op(op, a, b, c);
  } else {
    return eval_scalar_op<T>(op, a, b, c);
  }
}

namespace dual_detail {

template <class T>
using Tangent = std::vector<std::pair<int32_t, T>>;

// ca * ta + cb * tb, merging sparse directions; a null coefficient means 1.
template <class T>
Tangent<T> combine(const Tangent<T>& ta, const T* ca, const Tangent<T>& tb, const T* cb) {
  Tangent<T> r;
  r.reserve(ta.size() + tb.size());
  size_t i = 0, j = 0;
  auto scaled = [](const T* c, const T& x) { return c ? (*c) * x : x; };
  while (i < ta.size() || j < tb.size()) {
    if (j == tb.size() || (i < ta.size() && ta[i].first < tb[j].first)) {
      r.emplace_back(ta[i].first, scaled(ca, ta[i].second));
      ++i;
    } else if (i == ta.size() || tb[j].first < ta[i].first) {
      r.emplace_back(tb[j].first, scaled(cb, tb[j].second));
      ++j;
    } else {
      r.emplace_back(ta[i].first, scaled(ca, ta[i].second) + scaled(cb, tb[j].second));
      ++i, ++j;
    }
  }
  return r;
}

}  // namespace dual_detail

template <class T>
Dual<T> dual_op(Op op, const Dual<T>& a, const Dual<T>& b, const Dual<T>& c) {
  using dual_detail::combine;
  using Tg = dual_detail::Tangent<T>;
  const T v = value_op<T>(op, a.v, b.v, c.v);
  switch (op_info(op).cls) {
    case OpClass::Comparison:
      return Dual<T>(v, {});
    case OpClass::Selection: {
      if (op == Op::Select) return real_part(a.v) != 0 ? b : c;
      const bool first =
          op == Op::Min ? real_part(a.v) <= real_part(b.v) : real_part(a.v) >= real_part(b.v);
      return first ? a : b;
    }
    case OpClass::Piecewise: {
      if (op == Op::Sign) return Dual<T>(v, {});
      const double s = real_part(a.v) > 0 ? 1.0 : (real_part(a.v) < 0 ? -1.0 : 0.0);
      const T sc(s);
      return Dual<T>(v, s == 0 ? Tg{} : combine<T>(a.t, &sc, Tg{}, nullptr));
    }
    case OpClass::Linear: {
      const T minus_one(-1.0);
      if (op == Op::Add) return Dual<T>(v, combine<T>(a.t, nullptr, b.t, nullptr));
      if (op == Op::Sub) return Dual<T>(v, combine<T>(a.t, nullptr, b.t, &minus_one));
      if (op == Op::Cut || op == Op::Tape) return a;
      return Dual<T>(v, combine<T>(a.t, &minus_one, Tg{}, nullptr));  // Neg
    }
    case OpClass::Analytic: {
      const std::array<bool, 2> need = {!a.t.empty(), op_arity(op) > 1 && !b.t.empty()};
      const auto p = first_partials<T>(op, a.v, b.v, v, need);
      return Dual<T>(v, combine<T>(a.t, need[0] ? &p[0] : nullptr, need[1] ? b.t : Tg{},
                                   need[1] ? &p[1] : nullptr));
    }
    case OpClass::Leaf:
      break;
  }
  throw std::logic_error("dual_op: leaf op");
}

// Arithmetic and functions so that Dual<T> can itself be the T of first_partials
// (nested duals for second derivatives).
template <class T>
Dual<T> operator+(const Dual<T>& a, const Dual<T>& b) {
  return dual_op(Op::Add, a, b, Dual<T>());
}
template <class T>
Dual<T> operator-(const Dual<T>& a, const Dual<T>& b) {
  return dual_op(Op::Sub, a, b, Dual<T>());
}
template <class T>
Dual<T> operator*(const Dual<T>& a, const Dual<T>& b) {
  return dual_op(Op::Mul, a, b, Dual<T>());
}
template <class T>
Dual<T> operator/(const Dual<T>& a, const Dual<T>& b) {
  return dual_op(Op::Div, a, b, Dual<T>());
}
template <class T>
Dual<T> operator-(const Dual<T>& a) {
  return dual_op(Op::Neg, a, Dual<T>(), Dual<T>());
}
template <class T>
Dual<T> operator+(const Dual<T>& a, double b) {
  return a + Dual<T>(b);
}
template <class T>
Dual<T> operator-(const Dual<T>& a, double b) {
  return a - Dual<T>(b);
}
template <class T>
Dual<T> operator*(const Dual<T>& a, double b) {
  return a * Dual<T>(b);
}
template <class T>
Dual<T> operator/(const Dual<T>& a, double b) {
  return a / Dual<T>(b);
}
template <class T>
Dual<T> operator+(double a, const Dual<T>& b) {
  return Dual<T>(a) + b;
}
template <class T>
Dual<T> operator-(double a, const Dual<T>& b) {
  return Dual<T>(a) - b;
}
template <class T>
Dual<T> operator*(double a, const Dual<T>& b) {
  return Dual<T>(a) * b;
}
template <class T>
Dual<T> operator/(double a, const Dual<T>& b) {
  return Dual<T>(a) / b;
}

template <class T>
Dual<T> dual_unary(Op op, const Dual<T>& a) {
  return dual_op(op, a, Dual<T>(), Dual<T>());
}
template <class T>
Dual<T> sqrt(const Dual<T>& a) {
  return dual_unary(Op::Sqrt, a);
}
template <class T>
Dual<T> exp(const Dual<T>& a) {
  return dual_unary(Op::Exp, a);
}
template <class T>
Dual<T> log(const Dual<T>& a) {
  return dual_unary(Op::Log, a);
}
template <class T>
Dual<T> sin(const Dual<T>& a) {
  return dual_unary(Op::Sin, a);
}
template <class T>
Dual<T> cos(const Dual<T>& a) {
  return dual_unary(Op::Cos, a);
}
template <class T>
Dual<T> sinh(const Dual<T>& a) {
  return dual_unary(Op::Sinh, a);
}
template <class T>
Dual<T> cosh(const Dual<T>& a) {
  return dual_unary(Op::Cosh, a);
}
template <class T>
Dual<T> pow(const Dual<T>& a, const Dual<T>& b) {
  return dual_op(Op::Pow, a, b, Dual<T>());
}
template <class T>
Dual<T> pow(const Dual<T>& a, double b) {
  return pow(a, Dual<T>(b));
}

}  // namespace dualjit
