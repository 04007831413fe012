// Small fixed-size vectors of expressions: conveniences that unroll into the graph.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "dsl/expr.h"

namespace dualjit {

template <size_t N>
struct Vec {
  std::array<Expr, N> v;

  Vec() = default;
  explicit Vec(const std::array<Expr, N>& values) : v(values) {}
  // From the first N entries of a slot's components (throws if too few).
  static Vec from(const std::vector<Expr>& values, size_t offset = 0) {
    if (values.size() < offset + N) throw DslError("Vec::from: not enough components");
    Vec r;
    for (size_t i = 0; i < N; ++i) r.v[i] = values[offset + i];
    return r;
  }

  Expr& operator[](size_t i) { return v[i]; }
  const Expr& operator[](size_t i) const { return v[i]; }
  static constexpr size_t size() { return N; }
  std::vector<Expr> to_vector() const { return std::vector<Expr>(v.begin(), v.end()); }
};

template <size_t N, class F>
Vec<N> map2(const Vec<N>& a, const Vec<N>& b, F f) {
  Vec<N> r;
  for (size_t i = 0; i < N; ++i) r[i] = f(a[i], b[i]);
  return r;
}

template <size_t N>
Vec<N> operator+(const Vec<N>& a, const Vec<N>& b) {
  return map2(a, b, [](const Expr& x, const Expr& y) { return x + y; });
}
template <size_t N>
Vec<N> operator-(const Vec<N>& a, const Vec<N>& b) {
  return map2(a, b, [](const Expr& x, const Expr& y) { return x - y; });
}
template <size_t N>
Vec<N> operator-(const Vec<N>& a) {
  Vec<N> r;
  for (size_t i = 0; i < N; ++i) r[i] = -a[i];
  return r;
}
template <size_t N>
Vec<N> operator*(const Vec<N>& a, const Expr& s) {
  Vec<N> r;
  for (size_t i = 0; i < N; ++i) r[i] = a[i] * s;
  return r;
}
template <size_t N>
Vec<N> operator*(const Expr& s, const Vec<N>& a) {
  return a * s;
}
template <size_t N>
Vec<N> operator*(const Vec<N>& a, double s) {
  Vec<N> r;
  for (size_t i = 0; i < N; ++i) r[i] = a[i] * s;
  return r;
}
template <size_t N>
Vec<N> operator*(double s, const Vec<N>& a) {
  return a * s;
}
template <size_t N>
Vec<N> operator/(const Vec<N>& a, const Expr& s) {
  Vec<N> r;
  for (size_t i = 0; i < N; ++i) r[i] = a[i] / s;
  return r;
}

template <size_t N>
Expr dot(const Vec<N>& a, const Vec<N>& b) {
  Expr s = a[0] * b[0];
  for (size_t i = 1; i < N; ++i) s = s + a[i] * b[i];
  return s;
}

inline Vec<3> cross(const Vec<3>& a, const Vec<3>& b) {
  return Vec<3>({a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]});
}

template <size_t N>
Expr squared_norm(const Vec<N>& a) {
  return dot(a, a);
}
template <size_t N>
Expr norm(const Vec<N>& a) {
  return sqrt(dot(a, a));
}
template <size_t N>
Vec<N> normalized(const Vec<N>& a) {
  const Expr inv = 1.0 / norm(a);
  return a * inv;
}

}  // namespace dualjit
