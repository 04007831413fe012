#include "jit/parking.h"

#include <algorithm>
#include <queue>

namespace dualjit::jit {

namespace {

constexpr int kMaxParkSlots = 105;
constexpr int kMinParkSlots = 16;
constexpr size_t kSharedPerMultiprocessor = 228 * 1024;
constexpr size_t kSharedReservedPerBlock = 1024;  // the driver's own per block (sm_80 and on)
constexpr int kRegistersPerMultiprocessor = 65536;

}  // namespace

int park_slots(const LaunchPolicy& launch, int min_blocks, int max_live) {
  if (max_live <= kParkAbove || launch.block_threads <= 0) return 0;
  const int blocks =
      std::max({1, min_blocks, kRegistersPerMultiprocessor / (256 * launch.block_threads)});
  const size_t per_block = kSharedPerMultiprocessor / static_cast<size_t>(blocks);
  const size_t own = launch.dynamic_shared_bytes + kSharedReservedPerBlock;
  if (per_block <= own) return 0;
  const size_t fit =
      (per_block - own) / (sizeof(double) * static_cast<size_t>(launch.block_threads));
  int slots = static_cast<int>(std::min<size_t>(fit, kMaxParkSlots));
  if (slots % 2 == 0) --slots;
  return slots < kMinParkSlots ? 0 : slots;
}

std::vector<int> parked_slots(const std::vector<std::pair<int, int>>& intervals, int slots) {
  std::vector<int> slot(intervals.size(), -1);
  if (slots <= 0 || intervals.empty()) return slot;
  int end = 0;
  for (const auto& [def, last] : intervals) end = std::max(end, last + 1);
  // live[p]: values live at position p that are not parked; parked[p]: parked ones.
  std::vector<int> live(static_cast<size_t>(end) + 1, 0), parked(live.size(), 0);
  {
    std::vector<int> delta(live.size() + 1, 0);
    for (const auto& [def, last] : intervals) ++delta[size_t(def)], --delta[size_t(last) + 1];
    int run = 0;
    for (size_t p = 0; p < live.size(); ++p) live[p] = run += delta[p];
  }
  std::vector<size_t> by_span(intervals.size());
  for (size_t i = 0; i < by_span.size(); ++i) by_span[i] = i;
  std::stable_sort(by_span.begin(), by_span.end(), [&](size_t a, size_t b) {
    return intervals[a].second - intervals[a].first > intervals[b].second - intervals[b].first;
  });
  std::vector<size_t> chosen;
  for (size_t i : by_span) {
    const auto [def, last] = intervals[i];
    if (last - def < kMinParkedSpan) break;
    const auto from = live.begin() + def, to = live.begin() + last + 1;
    if (*std::max_element(from, to) <= kParkedLive) continue;
    if (*std::max_element(parked.begin() + def, parked.begin() + last + 1) >= slots) continue;
    for (int p = def; p <= last; ++p) --live[size_t(p)], ++parked[size_t(p)];
    chosen.push_back(i);
  }
  // Slots by definition order, each reused once its value's last read has passed.
  std::sort(chosen.begin(), chosen.end(),
            [&](size_t a, size_t b) { return intervals[a].first < intervals[b].first; });
  using Busy = std::pair<int, int>;  // last read, slot
  std::priority_queue<Busy, std::vector<Busy>, std::greater<Busy>> busy;
  std::vector<int> free;
  for (int s = slots; s-- > 0;) free.push_back(s);
  for (size_t i : chosen) {
    while (!busy.empty() && busy.top().first < intervals[i].first) {
      free.push_back(busy.top().second);
      busy.pop();
    }
    slot[i] = free.back();  // the occupancy check above leaves one free
    free.pop_back();
    busy.push({intervals[i].second, slot[i]});
  }
  return slot;
}

std::string cuda_parking(const LaunchPolicy& launch, int slots) {
  if (slots <= 0) return {};
  return "extern __shared__ double dj_parking_shared[];\n"
         "typedef volatile double dj_parked;\n"
         "DJ_FN dj_parked* dj_parking() {\n  return dj_parking_shared + " +
         std::to_string(launch.dynamic_shared_bytes / sizeof(double)) + " + threadIdx.x * " +
         std::to_string(slots) + ";\n}\n";
}

std::string host_parking(int slots) {
  if (slots <= 0) return {};
  return "typedef double dj_parked;\nstatic thread_local double dj_parking_host[" +
         std::to_string(slots) +
         "];\nstatic inline dj_parked* dj_parking() { return dj_parking_host; }\n";
}

}  // namespace dualjit::jit
