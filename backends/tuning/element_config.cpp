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
  jit::TuningConfig f;
  add_width_layout(c.width, c.layout, f);
  return f;
}

ElementConfig element_config(const jit::TuningConfig& f) {
  ElementConfig c;
  read_width_layout(f, c.width, c.layout, kWhat);
  return c;
}

std::string describe_element(const ElementConfig& c) {
  return describe_width_layout(c.width, c.layout);
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
