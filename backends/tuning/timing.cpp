#include "backends/tuning/timing.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "backends/cuda/driver.h"

namespace dualjit::tuning {
namespace {

double median(std::vector<double> t) {
  if (t.empty()) return 0;
  std::sort(t.begin(), t.end());
  const size_t m = t.size() / 2;
  return t.size() % 2 ? t[m] : 0.5 * (t[m - 1] + t[m]);
}

}  // namespace

double median_gpu_ms(const std::function<void()>& run, int warmup, int repeats) {
  for (int i = 0; i < warmup; ++i) run();
  cuda::check_last("warm-up runs");
  cuda::Event start, stop;
  std::vector<double> t;
  for (int i = 0; i < std::max(repeats, 1); ++i) {
    start.record();
    run();
    stop.record();
    stop.synchronize();
    t.push_back(cuda::Event::elapsed_ms(start, stop));
  }
  cuda::check_last("timed runs");
  return median(std::move(t));
}

double median_wall_ms(const std::function<void()>& run, int warmup, int repeats) {
  for (int i = 0; i < warmup; ++i) run();
  std::vector<double> t;
  for (int i = 0; i < std::max(repeats, 1); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(std::move(t));
}

}  // namespace dualjit::tuning
