// Wall-clock seconds for the stages the benchmarks report that CUDA events cannot time (graph
// building, lowering, compiles, host work).
#pragma once

#include <chrono>

namespace dualjit::bench {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace dualjit::bench
