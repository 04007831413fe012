// The flip-free step of one triangle of a parameterization (Smith & Schaefer 2015, section 4),
// for solvers::ElementStepBound: C++ that is also CUDA, compiled into the program and embedded
// as text for NVRTC (CMakeLists.txt), so it includes nothing there.
#pragma once

// Math through ::sqrt and ::copysign: inside namespace dualjit the DSL's overloads hide them.
#ifndef __CUDACC_RTC__
#include <cmath>
#endif

namespace dualjit::mesh_energy {

// uv, duv: the corners' UVs and their direction (3 x 2). Twice the signed area along uv + t duv
// is det(t) = a t^2 + b t + c; returns its smallest positive root (+inf when none), or 0 when
// the triangle is flipped or degenerate at t = 0 (c <= 0, or NaN). q = -(b + sign(b)
// sqrt(disc)) / 2 never cancels, and the roots are c / q and q / a: as a -> 0 the first tends
// to the linear root -c / b and the second to infinity, so no case needs a tolerance.
inline double flip_free_bound(const double* uv, const double* duv, const double*) {
  const double e1x = uv[2] - uv[0], e1y = uv[3] - uv[1];
  const double e2x = uv[4] - uv[0], e2y = uv[5] - uv[1];
  const double d1x = duv[2] - duv[0], d1y = duv[3] - duv[1];
  const double d2x = duv[4] - duv[0], d2y = duv[5] - duv[1];
  const double c = e1x * e2y - e1y * e2x;
  if (!(c > 0)) return 0;
  const double a = d1x * d2y - d1y * d2x;
  const double b = (e1x * d2y - e1y * d2x) + (d1x * e2y - d1y * e2x);
  const double inf = 1.0 / 0.0;
  const double disc = b * b - 4 * a * c;
  if (disc < 0) return inf;  // a > 0 here: det(t) stays positive
  const double q = -0.5 * (b + ::copysign(::sqrt(disc), b));
  double t = inf;
  if (q != 0) {
    const double r = c / q;
    if (r > 0 && r < t) t = r;
  }
  if (a != 0) {
    const double r = q / a;
    if (r > 0 && r < t) t = r;
  }
  return t;
}

}  // namespace dualjit::mesh_energy
