// Median time of `reps` launches of `launch` (CUDA events on the default stream); `reset`
// runs before each launch, untimed. Shared by the standalone microbenchmarks here.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

template <class Reset, class Launch>
float median_ms(int reps, Reset reset, Launch launch) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> ts;
  for (int rep = 0; rep < reps; ++rep) {
    reset();
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    ts.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}
