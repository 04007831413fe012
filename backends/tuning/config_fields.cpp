#include "backends/tuning/config_fields.h"

#include <stdexcept>

namespace dualjit::tuning {

int int_field(const jit::TuningConfig& c, const std::string& name, int fallback,
              const std::string& what) {
  const auto it = c.find(name);
  if (it == c.end()) return fallback;
  try {
    size_t used = 0;
    const int v = std::stoi(it->second, &used);
    if (used == it->second.size()) return v;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(what + ": field '" + name + "' = '" + it->second +
                              "' is not an integer");
}

bool bool_field(const jit::TuningConfig& c, const std::string& name, bool fallback,
                const std::string& what) {
  const auto it = c.find(name);
  if (it == c.end()) return fallback;
  if (it->second == "1" || it->second == "true") return true;
  if (it->second == "0" || it->second == "false") return false;
  throw std::invalid_argument(what + ": field '" + name + "' = '" + it->second + "' is not 0 or 1");
}

void add_width_layout(int width, const jit::LaunchLayout& layout, jit::TuningConfig& into) {
  into["width"] = std::to_string(width);
  into["threads_per_element"] = std::to_string(layout.threads_per_element);
  into["elements_per_block"] = std::to_string(layout.elements_per_block);
  into["min_blocks"] = std::to_string(layout.min_blocks);
}

void read_width_layout(const jit::TuningConfig& c, int& width, jit::LaunchLayout& layout,
                       const std::string& what) {
  width = int_field(c, "width", width, what);
  layout.threads_per_element =
      int_field(c, "threads_per_element", layout.threads_per_element, what);
  layout.elements_per_block = int_field(c, "elements_per_block", layout.elements_per_block, what);
  layout.min_blocks = int_field(c, "min_blocks", layout.min_blocks, what);
}

std::string describe_width_layout(int width, const jit::LaunchLayout& layout) {
  std::string s = "W" + std::to_string(width) + " " + std::to_string(layout.threads_per_element) +
                  "x" + std::to_string(layout.elements_per_block);
  if (layout.min_blocks > 0) s += " mb" + std::to_string(layout.min_blocks);
  return s;
}

}  // namespace dualjit::tuning
