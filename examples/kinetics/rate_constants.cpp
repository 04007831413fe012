#include "examples/kinetics/rate_constants.h"

#include <map>

#include "examples/kinetics/arrhenius_rate.h"
#include "examples/kinetics/chebyshev_rate.h"
#include "examples/kinetics/falloff_rate.h"
#include "examples/kinetics/plog_rate.h"

namespace dualjit::kinetics {

RateBuilder rate_builder(ReactionType type) {
  static const std::map<ReactionType, RateBuilder> table = {
      {ReactionType::elementary, elementary_rate},
      {ReactionType::three_body, three_body_rate},
      {ReactionType::falloff, falloff_rate},
      {ReactionType::chemically_activated, falloff_rate},
      {ReactionType::plog, plog_rate},
      {ReactionType::chebyshev, chebyshev_rate},
  };
  auto it = table.find(type);
  if (it == table.end())
    throw MechanismError("no rate builder for reaction type " +
                         std::to_string(static_cast<int>(type)));
  return it->second;
}

RateConstant forward_rate_constant(const RateContext& context, size_t index) {
  const Reaction& r = context.mechanism->reactions.at(index);
  return rate_builder(r.type)(r, context, index);
}

Expr third_body_concentration(const RateContext& context, size_t index) {
  const ThirdBody& third_body = context.mechanism->reactions.at(index).third_body;
  const double d = third_body.default_efficiency;
  Expr M = d == 0.0 ? Expr() : (d == 1.0 ? context.C_tot : d * context.C_tot);
  // In species order, as Cantera sums them.
  std::map<size_t, double> by_species;
  for (const auto& [name, efficiency] : third_body.efficiencies)
    by_species[reaction_species(*context.mechanism, name, index)] = efficiency - d;
  for (const auto& [k, e] : by_species) {
    if (e == 0.0) continue;
    const Expr& c = context.C.at(k);
    const Expr term = e == 1.0 ? c : e * c;
    M = M.valid() ? M + term : term;
  }
  return M.valid() ? M : context.C_tot.constant(0.0);
}

std::string reaction_label(const Mechanism& mechanism, size_t index) {
  return mechanism.file + ": reaction " + std::to_string(index + 1) + " '" +
         mechanism.reactions.at(index).equation + "'";
}

size_t reaction_species(const Mechanism& mechanism, const std::string& name, size_t index) {
  const int k = mechanism.species_index(name);
  if (k < 0)
    throw MechanismError(reaction_label(mechanism, index) + ": unknown species '" + name + "'");
  return static_cast<size_t>(k);
}

}  // namespace dualjit::kinetics
