#include "jit/first_stage.h"

#include <algorithm>
#include <numeric>

namespace dualjit::jit {

std::optional<std::vector<StageRange>> stage_ranges(const DerivativePlan& plan,
                                                    std::span<const Chunk> chunks,
                                                    const JacobianPattern* sparse) {
  if (plan.mode != Mode::Jacobian) return std::nullopt;
  std::vector<int> all_rows(static_cast<size_t>(plan.n_outputs));
  std::iota(all_rows.begin(), all_rows.end(), 0);
  std::vector<StageRange> ranges;
  for (const Chunk& c : chunks) {
    const std::vector<int>& rows = c.outputs.empty() ? all_rows : c.outputs;
    int64_t lo = INT64_MAX, hi = -1, count = 0;
    for (int r : rows) {
      for (int j : c.first_columns) {
        const int64_t at = sparse ? sparse->index(r, j) : int64_t{r} * plan.n_inputs + j;
        if (at < 0) continue;
        lo = std::min(lo, at);
        hi = std::max(hi, at);
        ++count;
      }
    }
    if (count == 0) {
      ranges.push_back({});
      continue;
    }
    if (hi - lo + 1 != count || count > INT32_MAX) return std::nullopt;
    ranges.push_back({lo, static_cast<int>(count)});
  }
  return ranges;
}

size_t stage_bytes(int block_threads, int entries) {
  return static_cast<size_t>(block_threads) * static_cast<size_t>(entries) * sizeof(double);
}

}  // namespace dualjit::jit
