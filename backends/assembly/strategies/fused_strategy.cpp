#include "backends/assembly/strategies/fused_strategy.h"

#include <stdexcept>

namespace dualjit::assembly {

std::string FusedStrategy::suffix() const {
  return prefix() + (spec_.off_single ? "32" : "64") + letters();
}

void FusedStrategy::fail(const std::string& kernel, const std::string& what) const {
  throw std::invalid_argument("kernel '" + kernel + "': " + std::string(name()) +
                              " assembly: " + what);
}

void FusedStrategy::unfit(const std::string& kernel, const std::string& what) const {
  throw StrategyUnfit("kernel '" + kernel + "': " + std::string(name()) + " assembly: " + what);
}

void FusedStrategy::check(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
                          const std::string& kernel) const {
  const FusedSpec& a = spec_;
  if (plan.mode != Mode::Jacobian && plan.mode != Mode::Value) {
    fail(kernel, "assembles residuals and Jacobians (mode value or jacobian), not " +
                     std::string(mode_name(plan.mode)));
  }
  if (a.jacobian != (plan.mode == Mode::Jacobian)) fail(kernel, "mode and spec.jacobian disagree");
  for (int size : s.slot_size) {
    if (size != a.block)
      fail(kernel, "every input slot must be B = " + std::to_string(a.block) + " wide");
  }
  if (s.n_outputs != static_cast<int>(a.output_scatter.size()) * a.block) {
    fail(kernel, "scatter rules for " + std::to_string(a.output_scatter.size()) +
                     " output slots of B = " + std::to_string(a.block) + " do not cover " +
                     std::to_string(s.n_outputs) + " outputs");
  }
  for (const auto& rules : a.output_scatter) {
    for (const auto& [v, sign] : rules) {
      if (v < 0 || v >= a.vertices) fail(kernel, "scatter to vertex " + std::to_string(v));
    }
  }
  for (int v : s.input_vertex) {
    if (v >= a.vertices) fail(kernel, "input bound to vertex " + std::to_string(v));
  }
  check_strategy(s, plan, kernel);
}

std::vector<jit::ArgField> FusedStrategy::fields(const jit::DriverSpec& s) const {
  using jit::ArgKind;
  const bool j = spec_.jacobian;
  std::vector<jit::ArgField> f = {
      {"residual", ArgKind::Pointer, "double*", 1, true, "residual"},
      {"diag", ArgKind::Pointer, "double*", 1, j, "diagonal blocks"},
      {"off", ArgKind::Pointer, "void*", 1, j, "off-diagonal block values"},
  };
  for (jit::ArgField& x : own_fields(s)) f.push_back(std::move(x));
  return f;
}

}  // namespace dualjit::assembly
