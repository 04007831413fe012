// Medians of repeated runs: CUDA events on the GPU, the wall clock on the host.
#pragma once

#include <functional>

namespace dualjit::tuning {

// `run` enqueues one evaluation on the null stream; `warmup` untimed runs first, then the
// median of `repeats` event-timed runs. Throws cuda::CudaError when a run fails.
double median_gpu_ms(const std::function<void()>& run, int warmup, int repeats);
// `run` is synchronous; the median wall-clock time of `repeats` runs after `warmup`.
double median_wall_ms(const std::function<void()>& run, int warmup, int repeats);

}  // namespace dualjit::tuning
