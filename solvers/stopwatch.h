// Wall-clock seconds since construction, for the solvers' per-iteration timings.
#pragma once

#include <chrono>

namespace dualjit::solvers {

class Stopwatch {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace dualjit::solvers
