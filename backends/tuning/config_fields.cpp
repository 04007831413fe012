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

}  // namespace dualjit::tuning
