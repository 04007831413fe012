// Small fixed-size matrices of expressions (2x2, 3x3, and the rectangular ones between them):
// products, transpose, determinant, inverse, trace, Frobenius norm. Conveniences that unroll
// into the graph, like Vec (vec.h); the mesh energies build deformation gradients with them.
#pragma once

#include <array>
#include <cstddef>

#include "dsl/vec.h"

namespace dualjit {

// Row-major: (i, j) is m[i * C + j].
template <size_t R, size_t C>
struct Mat {
  std::array<Expr, R * C> m;

  Expr& operator()(size_t i, size_t j) { return m[i * C + j]; }
  const Expr& operator()(size_t i, size_t j) const { return m[i * C + j]; }
  static constexpr size_t rows() { return R; }
  static constexpr size_t cols() { return C; }

  Vec<C> row(size_t i) const {
    Vec<C> r;
    for (size_t j = 0; j < C; ++j) r[j] = (*this)(i, j);
    return r;
  }
  Vec<R> col(size_t j) const {
    Vec<R> c;
    for (size_t i = 0; i < R; ++i) c[i] = (*this)(i, j);
    return c;
  }
  // From column vectors (e.g. the edge vectors of a triangle or tetrahedron).
  static Mat from_cols(const std::array<Vec<R>, C>& cols) {
    Mat a;
    for (size_t j = 0; j < C; ++j)
      for (size_t i = 0; i < R; ++i) a(i, j) = cols[j][i];
    return a;
  }
  static Mat from_rows(const std::array<Vec<C>, R>& rows) {
    Mat a;
    for (size_t i = 0; i < R; ++i)
      for (size_t j = 0; j < C; ++j) a(i, j) = rows[i][j];
    return a;
  }
};

using Mat2 = Mat<2, 2>;
using Mat3 = Mat<3, 3>;

// The N x N identity in the graph of `any` (constants live in a graph).
template <size_t N>
Mat<N, N> identity(const Expr& any) {
  Mat<N, N> a;
  for (size_t i = 0; i < N; ++i)
    for (size_t j = 0; j < N; ++j) a(i, j) = any.constant(i == j ? 1.0 : 0.0);
  return a;
}

template <size_t R, size_t C>
Mat<C, R> transpose(const Mat<R, C>& a) {
  Mat<C, R> t;
  for (size_t i = 0; i < R; ++i)
    for (size_t j = 0; j < C; ++j) t(j, i) = a(i, j);
  return t;
}

template <size_t R, size_t C>
Mat<R, C> operator+(const Mat<R, C>& a, const Mat<R, C>& b) {
  Mat<R, C> r;
  for (size_t k = 0; k < R * C; ++k) r.m[k] = a.m[k] + b.m[k];
  return r;
}
template <size_t R, size_t C>
Mat<R, C> operator-(const Mat<R, C>& a, const Mat<R, C>& b) {
  Mat<R, C> r;
  for (size_t k = 0; k < R * C; ++k) r.m[k] = a.m[k] - b.m[k];
  return r;
}
template <size_t R, size_t C>
Mat<R, C> operator*(const Mat<R, C>& a, const Expr& s) {
  Mat<R, C> r;
  for (size_t k = 0; k < R * C; ++k) r.m[k] = a.m[k] * s;
  return r;
}
template <size_t R, size_t C>
Mat<R, C> operator*(const Expr& s, const Mat<R, C>& a) {
  return a * s;
}
template <size_t R, size_t C>
Mat<R, C> operator*(const Mat<R, C>& a, double s) {
  Mat<R, C> r;
  for (size_t k = 0; k < R * C; ++k) r.m[k] = a.m[k] * s;
  return r;
}
template <size_t R, size_t C>
Mat<R, C> operator*(double s, const Mat<R, C>& a) {
  return a * s;
}

template <size_t R, size_t K, size_t C>
Mat<R, C> operator*(const Mat<R, K>& a, const Mat<K, C>& b) {
  Mat<R, C> r;
  for (size_t i = 0; i < R; ++i) {
    for (size_t j = 0; j < C; ++j) {
      Expr s = a(i, 0) * b(0, j);
      for (size_t k = 1; k < K; ++k) s = s + a(i, k) * b(k, j);
      r(i, j) = s;
    }
  }
  return r;
}

template <size_t R, size_t C>
Vec<R> operator*(const Mat<R, C>& a, const Vec<C>& x) {
  Vec<R> y;
  for (size_t i = 0; i < R; ++i) y[i] = dot(a.row(i), x);
  return y;
}

template <size_t N>
Expr trace(const Mat<N, N>& a) {
  Expr s = a(0, 0);
  for (size_t i = 1; i < N; ++i) s = s + a(i, i);
  return s;
}

template <size_t R, size_t C>
Expr squared_frobenius_norm(const Mat<R, C>& a) {
  Expr s = a.m[0] * a.m[0];
  for (size_t k = 1; k < R * C; ++k) s = s + a.m[k] * a.m[k];
  return s;
}
template <size_t R, size_t C>
Expr frobenius_norm(const Mat<R, C>& a) {
  return sqrt(squared_frobenius_norm(a));
}

inline Expr determinant(const Mat2& a) {
  return a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
}
inline Expr determinant(const Mat3& a) {
  return dot(a.row(0), cross(a.row(1), a.row(2)));
}

// The adjugate over the determinant; singular matrices give infinities, as a scalar 1 / 0 does.
inline Mat2 inverse(const Mat2& a) {
  const Expr inv = 1.0 / determinant(a);
  Mat2 r;
  r(0, 0) = a(1, 1) * inv;
  r(0, 1) = -a(0, 1) * inv;
  r(1, 0) = -a(1, 0) * inv;
  r(1, 1) = a(0, 0) * inv;
  return r;
}
inline Mat3 inverse(const Mat3& a) {
  // Columns of the adjugate's transpose are cross products of the rows.
  const Vec<3> c0 = cross(a.row(1), a.row(2)), c1 = cross(a.row(2), a.row(0)),
               c2 = cross(a.row(0), a.row(1));
  const Expr inv = 1.0 / dot(a.row(0), c0);
  return Mat3::from_cols({c0 * inv, c1 * inv, c2 * inv});
}

}  // namespace dualjit
