// A step bound for tests/solvers/element_step_bound_test.cpp: each node of an edge must stay
// above its floor, so the bound is the smallest (floor - x) / dx over the nodes moving down.
// C++ that is also CUDA, compiled into the test and embedded as text for NVRTC (CMakeLists.txt).
#pragma once

namespace floor_test {

// x, dx: the edge's two values and their direction; floor: its nodes' floors. 0 when a node is
// not above its floor, +inf when none moves down.
inline double floor_bound(const double* x, const double* dx, const double* floor) {
  double t = 1.0 / 0.0;
  for (int a = 0; a < 2; ++a) {
    if (!(x[a] > floor[a])) return 0;
    if (dx[a] < 0) {
      const double r = (floor[a] - x[a]) / dx[a];
      if (r < t) t = r;
    }
  }
  return t;
}

}  // namespace floor_test
