#include "backends/tuning/element_config.h"

#include <algorithm>
#include <stdexcept>

#include "backends/tuning/config_fields.h"

namespace dualjit::tuning {
namespace {

const std::string kWhat = "element configuration";

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

}  // namespace

jit::TuningConfig element_config_fields(const ElementConfig& c) {
  return {{"width", std::to_string(c.width)},
          {"threads_per_element", std::to_string(c.layout.threads_per_element)},
          {"elements_per_block", std::to_string(c.layout.elements_per_block)},
          {"min_blocks", std::to_string(c.layout.min_blocks)}};
}

ElementConfig element_config(const jit::TuningConfig& f) {
  ElementConfig c;
  c.width = int_field(f, "width", c.width, kWhat);
  c.layout.threads_per_element = int_field(f, "threads_per_element", 1, kWhat);
  c.layout.elements_per_block = int_field(f, "elements_per_block", 128, kWhat);
  c.layout.min_blocks = int_field(f, "min_blocks", 0, kWhat);
  return c;
}

std::string describe_element(const ElementConfig& c) {
  std::string s = "W" + std::to_string(c.width) + " " +
                  std::to_string(c.layout.threads_per_element) + "x" +
                  std::to_string(c.layout.elements_per_block);
  if (c.layout.min_blocks > 0) s += " mb" + std::to_string(c.layout.min_blocks);
  return s;
}

std::vector<ElementConfig> element_candidates(Target target, int n_inputs) {
  const int n = std::max(n_inputs, 1);
  std::vector<int> widths = {n, ceil_div(n, 2)};
  if (target == Target::Cpu) widths.push_back(ceil_div(n, 3));
  widths.push_back(1);
  std::vector<ElementConfig> out;
  const auto add = [&](int w, int t, int b) {
    for (const auto& c : out) {
      if (c.width == w && c.layout.threads_per_element == t && c.layout.elements_per_block == b)
        return;
    }
    out.push_back({w, {t, b, 0}});
  };
  for (int w : widths) {
    if (target == Target::Cpu) {
      add(w, 1, 128);
      continue;
    }
    const int chunks = ceil_div(n, w);
    for (int t : {1, chunks}) {
      if (t > 8) continue;
      for (int b : {128, 64, 256}) add(w, t, b);
    }
  }
  return out;
}

ElementConfig element_heuristic(Target, int n_inputs) {
  return {std::clamp(n_inputs, 1, 8), {1, 128, 0}};
}

}  // namespace dualjit::tuning
