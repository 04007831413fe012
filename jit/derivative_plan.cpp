#include "jit/derivative_plan.h"

#include <algorithm>
#include <sstream>

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

// Every chunk once per row group, group by group; each group's first chunk writes its values.
void split_rows(DerivativePlan& plan, int rows) {
  const int n_out = plan.n_outputs;
  if (rows <= 0 || rows >= n_out) return;
  plan.rows = rows;
  std::vector<Chunk> grouped;
  for (const auto& [first, last] : even_ranges(n_out, rows)) {
    for (const Chunk& c : plan.chunks) {
      Chunk g = c;
      for (int r = first; r < last; ++r) g.outputs.push_back(r);
      grouped.push_back(std::move(g));
    }
  }
  plan.chunks = std::move(grouped);
}

}  // namespace

DerivativePlan plan_derivatives(const Kernel& kernel, Mode mode, int width, int rows) {
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
  if (mode == Mode::Value || n == 0) {
    Chunk c;
    c.writes_values = true;
    plan.chunks.push_back(c);
    split_rows(plan, rows);
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
  split_rows(plan, rows);
  return plan;
}

void add_tape_chunk(DerivativePlan& plan) {
  Chunk c;
  c.tape = true;
  for (int i = 0; i < plan.n_inputs; ++i) c.directions.push_back({i});
  plan.chunks.insert(plan.chunks.begin(), std::move(c));
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
    os << ", " << ch.pairs.size() << " pairs" << (ch.writes_values ? ", values" : "")
       << (ch.tape ? ", tapes" : "");
    if (!ch.outputs.empty()) os << ", outputs " << ch.outputs.front() << ".." << ch.outputs.back();
    os << '\n';
  }
  return os.str();
}

}  // namespace dualjit::jit
