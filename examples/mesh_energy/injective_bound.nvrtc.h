// The step before a face of a spherical map inverts, for solvers::ElementStepBound: C++ that is
// also CUDA, compiled into the program and embedded as text for NVRTC (CMakeLists.txt), so it
// includes nothing there.
#pragma once

// Math through ::sqrt and ::copysign: inside namespace dualjit the DSL's overloads hide them.
#ifndef __CUDACC_RTC__
#include <cmath>
#endif

namespace dualjit::mesh_energy {

// det(a, b, c) = a . (b x c): for points on a sphere about the origin, positive when the
// triangle a, b, c turns counter-clockwise seen from outside.
inline double det3(const double* a, const double* b, const double* c) {
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
         a[2] * (b[0] * c[1] - b[1] * c[0]);
}

// The smallest t > 0 with c0 + c1 t + c2 t^2 + c3 t^3 <= 0, given c0 > 0 (+inf when none): the
// cubic is monotone between the positive roots of its derivative, so the first of those pieces
// whose end is not positive holds the root, which a bracketing search narrows to 1e-15 of it; the
// bracket's lower end (where the cubic is still positive) is returned.
inline double first_positive_root(double c0, double c1, double c2, double c3) {
  const double inf = 1.0 / 0.0;
  double ends[2] = {0, 0};
  int n_ends = 0;
  const double a = 3 * c3, b = 2 * c2, c = c1;  // the derivative a t^2 + b t + c
  if (a != 0) {
    const double disc = b * b - 4 * a * c;
    if (disc >= 0) {
      const double q = -0.5 * (b + ::copysign(::sqrt(disc), b));  // no cancellation
      ends[n_ends++] = q / a;
      if (q != 0) ends[n_ends++] = c / q;
    }
  } else if (b != 0) {
    ends[n_ends++] = -c / b;
  }
  if (n_ends == 2 && ends[1] < ends[0]) {
    const double t = ends[0];
    ends[0] = ends[1];
    ends[1] = t;
  }
  double lo = 0, hi = inf;
  for (int k = 0; k < n_ends; ++k) {
    const double e = ends[k];
    if (!(e > lo) || !(e < inf)) continue;
    if (((c3 * e + c2) * e + c1) * e + c0 <= 0) {
      hi = e;
      break;
    }
    lo = e;
  }
  if (hi == inf) {
    // Past the last turning point the cubic is monotone: it ends negative only with a negative
    // leading coefficient; then double until it is.
    const double lead = c3 != 0 ? c3 : c2 != 0 ? c2 : c1;
    if (!(lead < 0)) return inf;
    hi = lo > 0 ? 2 * lo : 1.0;
    for (int k = 0; ((c3 * hi + c2) * hi + c1) * hi + c0 > 0; ++k) {
      if (k > 2100) return inf;
      lo = hi;
      hi *= 2;
    }
  }
  // Regula falsi with the Illinois rule (an end kept twice in a row has its value halved), so
  // that both ends close in on the root: about 10 evaluations where bisection takes 50.
  double f_lo = ((c3 * lo + c2) * lo + c1) * lo + c0, f_hi = ((c3 * hi + c2) * hi + c1) * hi + c0;
  int kept = 0;  // +1: lo moved last, -1: hi did
  for (int k = 0; k < 200 && hi - lo > 1e-15 * hi; ++k) {
    double t = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
    if (!(t > lo && t < hi)) t = 0.5 * (lo + hi);
    const double f_t = ((c3 * t + c2) * t + c1) * t + c0;
    if (f_t > 0) {
      lo = t;
      f_lo = f_t;
      if (kept == 1) f_hi *= 0.5;
      kept = 1;
    } else {
      hi = t;
      f_hi = f_t;
      if (kept == -1) f_lo *= 0.5;
      kept = -1;
    }
  }
  return lo;
}

// offsets, d: the corners' tangent-plane offsets and their direction (3 x 2); frame: per corner
// its point p and tangent basis b1, b2 (3 x 9). Along offsets + t d each corner's unnormalized
// retraction p + b1 o1 + b2 o2 moves linearly (normalizing only scales det by a positive factor),
// so det(q_a, q_b, q_c) is a cubic in t; returns its smallest positive root (+inf when none), or
// 0 when the face is inverted or degenerate at t = 0.
inline double injective_bound(const double* offsets, const double* d, const double* frame) {
  double q[3][3], dq[3][3];  // each corner's point at t = 0 and its rate
  for (int c = 0; c < 3; ++c) {
    const double* p = frame + c * 9;
    for (int k = 0; k < 3; ++k) {
      q[c][k] = p[k] + p[3 + k] * offsets[c * 2] + p[6 + k] * offsets[c * 2 + 1];
      dq[c][k] = p[3 + k] * d[c * 2] + p[6 + k] * d[c * 2 + 1];
    }
  }
  // Multilinear: one coefficient per choice of rows.
  const double c0 = det3(q[0], q[1], q[2]);
  if (!(c0 > 0)) return 0;
  const double c1 = det3(dq[0], q[1], q[2]) + det3(q[0], dq[1], q[2]) + det3(q[0], q[1], dq[2]);
  const double c2 = det3(dq[0], dq[1], q[2]) + det3(dq[0], q[1], dq[2]) + det3(q[0], dq[1], dq[2]);
  const double c3 = det3(dq[0], dq[1], dq[2]);
  return first_positive_root(c0, c1, c2, c3);
}

}  // namespace dualjit::mesh_energy
