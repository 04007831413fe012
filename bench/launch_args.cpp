// The host's cost of one launch's argument block: building jit::ArgValues and packing them
// through a table (jit/kernel_args.h) of 20 fields, as a node-gather gradient launch sets them
// (integers, single pointers, one doubles field), median of 11 batches of 100,000. With a GPU,
// also the driver's own floor: the host's time in cuLaunchKernel for an empty kernel with a
// block of as many words, queued behind a busy GPU, median of 11 batches of 500 launches: what
// no packing can remove from a launch's host time.
//
//   launch_args
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "backends/cuda/driver.h"
#include "backends/cuda/source_module.h"
#include "jit/kernel_args.h"

using namespace dualjit::jit;

int main() {
  const std::vector<std::string> names = {"n_elements", "conn",      "vertices_per_element",
                                          "field",      "direction", "params",
                                          "uniforms",   "values",    "first",
                                          "second",     "n_nodes",   "n_items",
                                          "active",     "inc_side",  "inc_element",
                                          "inc_nodes",  "out",       "accumulate",
                                          "row_ptr",    "slots"};
  ArgTable table;
  for (size_t i = 0; i < names.size(); ++i) {
    ArgField f;
    f.name = names[i];
    f.kind = names[i] == "uniforms" ? ArgKind::Doubles
             : i % 3 == 0           ? ArgKind::Int64
                                    : ArgKind::Pointer;
    f.c_type = "const double*";
    f.what = "the field " + names[i] + " of the launch";
    table.add(f);
  }
  double x = 0;
  uint64_t sink = 0;
  const auto launch = [&] {
    ArgValues v;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == "uniforms") continue;
      if (i % 3 == 0) {
        v.set(names[i], int64_t(i));
      } else {
        v.set(names[i], static_cast<const void*>(&x));
      }
    }
    sink += pack_args(table, v, "kernel", true).size();
  };
  constexpr int kBatch = 100000;
  for (int i = 0; i < kBatch; ++i) launch();
  std::vector<double> us;
  for (int r = 0; r < 11; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) launch();
    us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        kBatch);
  }
  std::sort(us.begin(), us.end());
  double driver_us = 0;
  if (dualjit::cuda::driver_available()) {
    // The empty kernel's launches queue behind a kernel that spins for ~5 ms, so the host's
    // time per launch is the driver's alone, not the GPU's pace at running empty kernels.
    const std::string source = "struct Block { unsigned long long w[" +
                               std::to_string(table.words()) +
                               "]; };\n"
                               "extern \"C\" __global__ void dj_empty(const Block b) {}\n"
                               "extern \"C\" __global__ void dj_spin(long long cycles) {\n"
                               "  const long long t0 = clock64();\n"
                               "  while (clock64() - t0 < cycles) {}\n"
                               "}\n";
    const dualjit::cuda::SourceModule m("launch_args_empty", source);
    const CUfunction empty = m.function("dj_empty"), spin = m.function("dj_spin");
    std::vector<uint64_t> words(table.words(), 0);
    void* params[] = {words.data()};
    long long cycles = 10'000'000;  // ~5 ms at 2 GHz
    void* spin_params[] = {&cycles};
    constexpr int kLaunches = 500;
    const auto batch = [&] {
      dualjit::cuda::launch(spin, dualjit::cuda::Dim3{1}, dualjit::cuda::Dim3{1}, 0, spin_params);
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kLaunches; ++i)
        dualjit::cuda::launch(empty, dualjit::cuda::Dim3{1}, dualjit::cuda::Dim3{32}, 0, params);
      const double t =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
          kLaunches;
      dualjit::cuda::check_last("launch_args");
      return t;
    };
    batch();
    std::vector<double> d;
    for (int r = 0; r < 11; ++r) d.push_back(batch());
    std::sort(d.begin(), d.end());
    driver_us = d[d.size() / 2];
  }
  std::printf(
      "RESULT launch_args fields=%zu us_per_launch=%.3f driver_launch_us=%.3f (words %llu)\n",
      names.size(), us[us.size() / 2], driver_us, (unsigned long long)sink);
  return 0;
}
