// The time at which a sampled quantity peaks (an ignition delay: the time of max dT/dt), from
// samples at the accepted steps of an integration, refined by the parabola through the largest
// sample and its neighbours. C++ that is also CUDA (CMakeLists.txt embeds it for NVRTC): the
// device step control samples on the GPU, peak() runs on the host.
#pragma once

#ifndef __CUDACC_RTC__
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#endif

namespace dualjit::solvers {

struct PeakTracker {
  // A sample beats the best so far when it is larger; the first one when it is not NaN or -inf.
  void add(double t, double f) {
    if (has_best ? f > best_f : f >= -1.7976931348623157e308) {
      has_prev = has_last, prev_t = last_t, prev_f = last_f;
      has_best = true, best_t = t, best_f = f;
      has_next = false;
      best_is_last = true;
    } else if (best_is_last) {
      has_next = true, next_t = t, next_f = f;
      best_is_last = false;
    }
    has_last = true, last_t = t, last_f = f;
  }

#ifndef __CUDACC_RTC__
  // (time, value) of the peak; (NaN, -inf) without a sample.
  std::pair<double, double> peak() const {
    if (!has_best)
      return {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()};
    if (!has_prev || !has_next) return {best_t, best_f};
    const double x0 = prev_t, x1 = best_t, x2 = next_t;
    const double y0 = prev_f, y1 = best_f, y2 = next_f;
    // Newton form: y = y0 + d1 (x - x0) + d2 (x - x0)(x - x1).
    const double d1 = (y1 - y0) / (x1 - x0);
    const double d2 = ((y2 - y1) / (x2 - x1) - d1) / (x2 - x0);
    if (!(d2 < 0)) return {best_t, best_f};
    const double x = std::clamp(0.5 * (x0 + x1 - d1 / d2), x0, x2);
    return {x, y0 + d1 * (x - x0) + d2 * (x - x0) * (x - x1)};
  }
#endif

  double prev_t = 0, prev_f = 0, best_t = 0, best_f = 0, next_t = 0, next_f = 0, last_t = 0,
         last_f = 0;
  bool has_prev = false, has_best = false, has_next = false, has_last = false, best_is_last = false;
};

}  // namespace dualjit::solvers
