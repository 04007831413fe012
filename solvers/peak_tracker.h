// The time at which a sampled quantity peaks (an ignition delay: the time of max dT/dt), from
// samples at the accepted steps of an integration, refined by the parabola through the largest
// sample and its neighbours.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>

namespace dualjit::solvers {

class PeakTracker {
 public:
  void add(double t, double f) {
    if (f > best_f_) {
      prev_t_ = last_t_, prev_f_ = last_f_;
      best_t_ = t, best_f_ = f;
      next_t_ = NAN;
      best_is_last_ = true;
    } else if (best_is_last_) {
      next_t_ = t, next_f_ = f;
      best_is_last_ = false;
    }
    last_t_ = t, last_f_ = f;
  }

  // (time, value) of the peak.
  std::pair<double, double> peak() const {
    if (std::isnan(prev_t_) || std::isnan(next_t_)) return {best_t_, best_f_};
    const double x0 = prev_t_, x1 = best_t_, x2 = next_t_;
    const double y0 = prev_f_, y1 = best_f_, y2 = next_f_;
    // Newton form: y = y0 + d1 (x - x0) + d2 (x - x0)(x - x1).
    const double d1 = (y1 - y0) / (x1 - x0);
    const double d2 = ((y2 - y1) / (x2 - x1) - d1) / (x2 - x0);
    if (!(d2 < 0)) return {best_t_, best_f_};
    const double x = std::clamp(0.5 * (x0 + x1 - d1 / d2), x0, x2);
    return {x, y0 + d1 * (x - x0) + d2 * (x - x0) * (x - x1)};
  }

 private:
  double prev_t_ = NAN, prev_f_ = NAN, best_t_ = NAN, best_f_ = -INFINITY, next_t_ = NAN,
         next_f_ = NAN, last_t_ = NAN, last_f_ = NAN;
  bool best_is_last_ = false;
};

}  // namespace dualjit::solvers
