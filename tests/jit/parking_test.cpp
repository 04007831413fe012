// Values parked in shared memory (jit/parking.h): which launches park, which values, in which
// slots, and the source a wide kernel's launch gets.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "jit/cuda_image.h"
#include "jit/lowering.h"
#include "jit/nvrtc_compiler.h"
#include "jit/parking.h"
#include "support/test_kernels.h"

using namespace dualjit;
using namespace dualjit::jit;

namespace {

// Values live at each position, of those whose slot is `parked` (-1: left in registers).
std::vector<int> live_along(const std::vector<std::pair<int, int>>& intervals,
                            const std::vector<int>& slot, bool parked) {
  int end = 0;
  for (const auto& [d, l] : intervals) end = std::max(end, l + 1);
  std::vector<int> live(size_t(end), 0);
  for (size_t i = 0; i < intervals.size(); ++i) {
    if ((slot[i] >= 0) != parked) continue;
    for (int p = intervals[i].first; p <= intervals[i].second; ++p) ++live[size_t(p)];
  }
  return live;
}

}  // namespace

TEST_CASE("park_slots: launches whose chunks keep more values live than registers park") {
  LaunchPolicy l;
  l.block_threads = 128;
  CHECK(park_slots(l, 0, kParkAbove) == 0);
  // Two blocks of 128 a multiprocessor at 255 registers: 105 slots (107,520 bytes) each.
  CHECK(park_slots(l, 0, kParkAbove + 1) == 105);
  // Beside a launch's own shared memory: what is left, odd.
  l.dynamic_shared_bytes = 60 * 1024;
  const int left = park_slots(l, 0, 400);
  CHECK(left % 2 == 1);
  CHECK(left > 16);
  CHECK(2 * (l.dynamic_shared_bytes + size_t(left) * 8 * 128 + 1024) <= 228 * 1024);
  l.dynamic_shared_bytes = 110 * 1024;
  CHECK(park_slots(l, 0, 400) == 0);
  l.dynamic_shared_bytes = 0;
  l.block_threads = 256;  // one block a multiprocessor
  CHECK(park_slots(l, 0, 400) == 105);
  // Three blocks of 128 a multiprocessor (__launch_bounds__): a third of it each.
  l.block_threads = 128;
  const int third = park_slots(l, 3, 400);
  CHECK(third % 2 == 1);
  CHECK(3 * (size_t(third) * 8 * 128 + 1024) <= 228 * 1024);
  CHECK(third > 60);
}

TEST_CASE("parked_slots: the longest-lived values where too many are live, slots reused") {
  std::mt19937_64 rng(7);
  std::vector<std::pair<int, int>> intervals;
  // 50 values across the whole function (0..2000), 200 short ones along it.
  for (int i = 0; i < 50; ++i) {
    const int d = int(rng() % 40);
    intervals.push_back({d, 1960 + int(rng() % 40)});
  }
  for (int i = 0; i < 200; ++i) {
    const int d = int(rng() % 1990);
    intervals.push_back({d, d + int(rng() % 10)});
  }
  // And 500 in two halves: a slot serves one of each.
  for (int i = 0; i < 500; ++i)
    intervals.push_back(i % 2 ? std::pair{1000, 1900} : std::pair{100, 900});
  const int slots = 105;
  const std::vector<int> slot = parked_slots(intervals, slots);
  REQUIRE(slot.size() == intervals.size());
  // No slot holds two values at once; none is out of range.
  for (size_t i = 0; i < slot.size(); ++i) {
    if (slot[i] < 0) continue;
    CHECK(slot[i] < slots);
    for (size_t j = i + 1; j < slot.size(); ++j) {
      if (slot[j] != slot[i]) continue;
      const bool apart =
          intervals[i].second < intervals[j].first || intervals[j].second < intervals[i].first;
      CHECK(apart);
    }
  }
  // Short values stay in registers; the parked ones are among the longest.
  for (size_t i = 0; i < 50; ++i) CHECK(slot[i] >= 0);
  for (size_t i = 50; i < 250; ++i) CHECK(slot[i] == -1);
  const auto parked = live_along(intervals, slot, true);
  CHECK(*std::max_element(parked.begin(), parked.end()) <= slots);
  // Every slot is used, and the halves share slots: more values parked than slots.
  const long n_parked = std::count_if(slot.begin(), slot.end(), [](int s) { return s >= 0; });
  CHECK(n_parked > slots);
  // Fewer than kParkedLive values live nowhere: nothing parked.
  std::vector<std::pair<int, int>> few(kParkedLive, {0, 1000});
  const auto none = parked_slots(few, slots);
  CHECK(std::all_of(none.begin(), none.end(), [](int s) { return s < 0; }));
}

TEST_CASE("a wide kernel's launch parks its longest-lived values; NVRTC compiles it") {
  LoweringOptions o;
  o.mode = Mode::Value;
  const LoweredKernel l = lower(test::wide_kernel(), o);
  CAPTURE(l.max_live);
  REQUIRE(l.max_live > kParkAbove);
  REQUIRE(l.launch.block_threads == 128);
  // Its own launch takes no shared memory: the parking is all of it.
  CHECK(l.launch.dynamic_shared_bytes == 105 * 128 * sizeof(double));
  CHECK(l.cuda_source.find("DJ_FN dj_parked* dj_parking()") != std::string::npos);
  CHECK(l.host_source.find("static thread_local double dj_parking_host[105]") != std::string::npos);
  CHECK(l.element_source.find("dj_parked* const pk = dj_parking();") != std::string::npos);
  CHECK(l.element_source.find("  pk[0] = t") != std::string::npos);
  CompileOptions co;
  co.arch = "sm_90";
  KernelCache cache(std::nullopt);
  const auto img = cuda_image(l, co, cache);
  CHECK(img.is_cubin);
  MESSAGE("wide kernel: " << l.max_live << " values live, " << img.ptxas.registers
                          << " registers, spills " << img.ptxas.spill_store_bytes << " B");
  // A narrow kernel parks nothing and declares no parking.
  const LoweredKernel narrow = lower(test::arrhenius_kernel(), o);
  CHECK(narrow.cuda_source.find("dj_parking") == std::string::npos);
  CHECK(narrow.launch.dynamic_shared_bytes == 0);
}
