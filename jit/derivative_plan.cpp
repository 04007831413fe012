#include "jit/derivative_plan.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <sstream>

#include "jit/composed_outputs.h"

namespace dualjit::jit {

namespace {

// [0, n) as ceil(n/size) consecutive ranges of equal length where n allows (10 at size 6..9:
// 5 + 5, not 6 + 4): the largest sets the register demand, so uneven ones only add to it.
std::vector<std::pair<int, int>> even_ranges(int n, int size) {
  std::vector<std::pair<int, int>> out;
  const int count = (n + size - 1) / size;
  for (int k = 0, start = 0; k < count; ++k) {
    const int end = start + n / count + (k < n % count ? 1 : 0);
    out.emplace_back(start, end);
    start = end;
  }
  return out;
}

// Columns per chunk of a composed group: each column's accumulator and each row's loads for
// it are live together, and a GRI-3.0 heat-release row of all 54 columns in one chunk made
// ptxas spill 22 KB a thread (bench/RESULTS.md).
size_t composed_width() {
  if (const char* env = std::getenv("DUALJIT_COMPOSED_WIDTH")) return std::max(1, std::atoi(env));
  return 8;
}

// Every chunk once per row group, group by group; each group's first chunk writes its values.
// With composition, the outputs composed from others come last, in groups of their own whose
// chunks read the rows their outputs are composed from.
void split_rows(DerivativePlan& plan, int rows, const OutputComposition* composition) {
  const int n_out = plan.n_outputs;
  if (rows <= 0 || rows >= n_out) return;
  plan.rows = rows;
  std::vector<int> computed, composed;
  for (int r = 0; r < n_out; ++r) {
    (composition && composition->composed(r) ? composed : computed).push_back(r);
  }
  std::vector<Chunk> grouped;
  // Composed groups split their column chunks further (composed_width).
  const auto add_groups = [&](const std::vector<int>& outputs, size_t width) {
    for (const auto& [first, last] : even_ranges(static_cast<int>(outputs.size()), rows)) {
      std::vector<int> reads;
      for (int i = first; i < last; ++i) {
        const auto& b = composition ? composition->bases[outputs[i]] : std::vector<int>{};
        reads.insert(reads.end(), b.begin(), b.end());
      }
      std::sort(reads.begin(), reads.end());
      reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
      for (const Chunk& c : plan.chunks) {
        const size_t n = c.directions.size();
        for (size_t d0 = 0; d0 == 0 || d0 < n; d0 += width) {
          Chunk g = c;
          if (n > width) {
            const size_t d1 = std::min(n, d0 + width);
            g.directions.assign(c.directions.begin() + d0, c.directions.begin() + d1);
            g.first_columns.assign(c.first_columns.begin() + d0, c.first_columns.begin() + d1);
            g.writes_values = c.writes_values && d0 == 0;
          }
          g.outputs.assign(outputs.begin() + first, outputs.begin() + last);
          g.reads = reads;
          grouped.push_back(std::move(g));
        }
      }
    }
  };
  add_groups(computed, std::numeric_limits<size_t>::max());
  if (!composed.empty()) add_groups(composed, composed_width());
  plan.chunks = std::move(grouped);
}

// Ascending indices as runs: " 0..51 53".
std::string runs(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    s += ' ' + std::to_string(v[i]);
    if (j > i) s += ".." + std::to_string(v[j]);
    i = j + 1;
  }
  return s;
}

}  // namespace

size_t DerivativePlan::first_reading_chunk() const {
  size_t c = 0;
  while (c < chunks.size() && !chunks[c].reads_rows()) ++c;
  return c;
}

DerivativePlan plan_derivatives(const Kernel& kernel, Mode mode, int width, int rows,
                                bool compose) {
  DerivativePlan plan;
  plan.mode = mode;
  plan.n_inputs = kernel.n_inputs();
  plan.n_outputs = kernel.n_outputs();
  const int n = plan.n_inputs;
  if (mode_needs_scalar_output(mode) && !kernel.scalar_output()) {
    throw DslError("kernel '" + kernel.name() + "': mode '" + std::string(mode_name(mode)) +
                   "' needs a scalar output, the kernel has " + std::to_string(kernel.n_outputs()));
  }
  plan.width = (width <= 0 || width > n) ? std::max(n, 1) : width;
  const int w = plan.width;
  if (rows > 0 && mode != Mode::Value && mode != Mode::Jacobian) {
    throw DslError("kernel '" + kernel.name() + "': row groups in mode '" +
                   std::string(mode_name(mode)) + "' (Value and Jacobian only)");
  }
  std::optional<OutputComposition> composition;
  if (compose && rows > 0 && rows < plan.n_outputs) {
    composition = output_composition(kernel);
    if (!composition->any()) composition.reset();
  }
  const OutputComposition* composed = composition ? &*composition : nullptr;
  if (mode == Mode::Value || n == 0) {
    Chunk c;
    c.writes_values = true;
    plan.chunks.push_back(c);
    split_rows(plan, rows, composed);
    return plan;
  }
  for (const auto& [start, end] : even_ranges(n, w)) {
    Chunk c;
    c.writes_values = start == 0;
    switch (mode) {
      case Mode::Jacobian:
      case Mode::Gradient:
        for (int j = start; j < end; ++j) {
          c.directions.push_back({j});
          c.first_columns.push_back(j);
        }
        break;
      case Mode::Hessian: {
        // Rows [start, end), columns j >= row; chunk 0 also writes the whole gradient.
        const int lo = start == 0 ? 0 : start;
        for (int j = lo; j < n; ++j) c.directions.push_back({j});
        for (int i = start; i < end; ++i) {
          for (int j = i; j < n; ++j) c.pairs.emplace_back(i - lo, j - lo);
        }
        if (start == 0) {
          for (int j = 0; j < n; ++j) c.first_columns.push_back(j);
        }
        break;
      }
      case Mode::Hvp: {
        c.directions.push_back({-1});  // v first: pairs (v, j)
        for (int j = start; j < end; ++j) {
          c.directions.push_back({j});
          c.pairs.emplace_back(0, j - start + 1);
          c.first_columns.push_back(j);
        }
        break;
      }
      case Mode::Value:
        break;
    }
    plan.chunks.push_back(std::move(c));
  }
  split_rows(plan, rows, composed);
  return plan;
}

std::string describe(const DerivativePlan& plan) {
  std::ostringstream os;
  os << "plan " << mode_name(plan.mode) << " W=" << plan.width << " n=" << plan.n_inputs
     << " chunks=" << plan.chunks.size();
  if (plan.rows > 0) os << " rows=" << plan.rows;
  os << '\n';
  for (size_t c = 0; c < plan.chunks.size(); ++c) {
    const Chunk& ch = plan.chunks[c];
    os << "  chunk " << c << ": directions";
    for (const Direction& d : ch.directions) {
      if (d.is_hvp_vector()) {
        os << " v";
      } else {
        os << ' ' << d.input;
      }
    }
    os << ", " << ch.pairs.size() << " pairs" << (ch.writes_values ? ", values" : "");
    if (!ch.outputs.empty()) os << ", outputs" << runs(ch.outputs);
    if (ch.reads_rows()) os << ", reads" << runs(ch.reads);
    os << '\n';
  }
  return os.str();
}

}  // namespace dualjit::jit
