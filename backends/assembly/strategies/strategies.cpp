#include "backends/assembly/strategies/strategies.h"

#include <functional>
#include <stdexcept>

#include "backends/assembly/strategies/units.h"

namespace dualjit::assembly {
namespace {

struct Unit {
  std::string name;
  std::function<std::shared_ptr<const FusedStrategy>(FusedSpec)> make;
};

const std::vector<Unit>& units_list() {
  static const std::vector<Unit> list = {
      {"scatter-atomic", units::scatter_atomic},
      {"staged-scatter", units::staged_scatter},
      {"gather-by-column", units::gather_by_column},
      {"staged-gather", units::staged_gather},
      {"warp-specialized-gather", units::warp_specialized_gather},
  };
  return list;
}

}  // namespace

std::shared_ptr<const FusedStrategy> make_fused_strategy(std::string_view name, FusedSpec spec) {
  for (const Unit& u : units_list()) {
    if (u.name == name) return u.make(std::move(spec));
  }
  std::string known;
  for (const Unit& u : units_list()) known += (known.empty() ? "" : ", ") + u.name;
  throw std::invalid_argument("unknown assembly strategy '" + std::string(name) +
                              "' (known: " + known + ")");
}

const std::vector<std::string>& fused_strategy_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Unit& u : units_list()) n.push_back(u.name);
    return n;
  }();
  return names;
}

}  // namespace dualjit::assembly
