#include "backends/assembly/strategies/in_place_strategy.h"

#include <algorithm>
#include <stdexcept>

#include "backends/assembly/strategies/units.h"
#include "jit/hessian_projection.h"

namespace dualjit::assembly {

const InPlaceStrategy& in_place_strategy(ElementStrategy s) {
  // The one list of in-place units.
  static const auto scatter = units::element_scatter();
  static const auto node_gather = units::node_gather();
  static const auto staged_node_gather = units::staged_node_gather();
  switch (s) {
    case ElementStrategy::Scatter:
      return *scatter;
    case ElementStrategy::NodeGather:
      return *node_gather;
    case ElementStrategy::StagedNodeGather:
      return *staged_node_gather;
    default:
      throw std::invalid_argument("in_place_strategy: " + std::string(element_strategy_name(s)) +
                                  " does not assemble in place");
  }
}

InPlaceRules in_place_rules(const Term& t, Mode mode, const InPlaceShape& shape,
                            const std::string& strategy) {
  const int block = shape.block;
  const auto wrong = [&](const char* what) {
    return ProblemError("term '" + t.name + "': " + strategy + " " + std::string(mode_name(mode)) +
                        ": " + what);
  };
  switch (mode) {
    case Mode::Value:
      if (t.energy) throw wrong("an energy term has no residual rows");
      return {"val", residual_rows(t, block), {}, {}, {}};
    case Mode::Gradient:
    case Mode::Hvp:
      if (!t.energy) throw wrong("only energy terms have gradient rows");
      return {mode == Mode::Gradient ? "d1" : "d2", input_rows(t, block), {}, {}, {}};
    case Mode::Hessian: {
      if (!t.energy) throw wrong("only energy terms have Hessian blocks");
      InPlaceRules r{
          "d2", {}, hessian_entries(t, block, shape.projection.active()), shape.projection, {}};
      if (shape.with_energy_gradient) r.gradient_rows = input_rows(t, block);
      return r;
    }
    case Mode::Jacobian:
      if (t.energy) throw wrong("an energy term has no Jacobian blocks");
      return {"d1", {}, jacobian_entries(t, block), {}, {}};
  }
  throw wrong("unknown mode");
}

std::vector<size_t> single_vertex_energy_terms(const Problem& p) {
  std::vector<size_t> out;
  for (size_t ti = 0; ti < p.n_terms(); ++ti) {
    if (p.term(ti).energy && p.term(ti).elements.k == 1) out.push_back(ti);
  }
  return out;
}

jit::LoweringOptions in_place_lowering(const Term& t, Mode mode, const InPlaceShape& shape) {
  jit::LoweringOptions o;
  o.mode = mode;
  o.width = shape.width;
  o.input_vertex = t.input_vertex;
  o.layout = {1, shape.items_per_block, shape.min_blocks};
  if (mode == Mode::Hessian && shape.projection.active() &&
      jit::projection_team_lanes(t.kernel->n_inputs()) > 0) {
    o.layout.min_blocks = std::max(1, 640 / shape.items_per_block);
  }
  return o;
}

}  // namespace dualjit::assembly
