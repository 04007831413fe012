// Forward rate constants of a mechanism's reactions as DSL expressions, one builder per
// ReactionType (arrhenius_rate.h, falloff_rate.h, plog_rate.h, chebyshev_rate.h), picked from a
// table. Definitions are Cantera 3.2's; k excludes [M] for three-body reactions (Cantera's
// non-legacy forward_rate_constants), which rates of progress multiply by.
#pragma once

#include <string>
#include <vector>

#include "dsl/expr.h"
#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/thermo.h"

namespace dualjit::kinetics {

// The functions of a cell's state that rate constants are built from, shared by all reactions.
struct RateContext {
  const Mechanism* mechanism = nullptr;
  TemperatureTerms t;
  Expr log_p, log10_p;  // pressure in Pa
  std::vector<Expr> C;  // concentrations, kmol/m^3, in the mechanism's species order
  Expr C_tot;           // molar density, kmol/m^3
  // Arrhenius rates whose exps reactions share (arrhenius_rate.h): the rates' values form.
  bool shared_exponentials = false;
};

// k and, where ln k is at hand (Arrhenius with A > 0, PLOG, Chebyshev), ln k: the reverse rate
// then folds 1/Kc into one exp with it.
struct RateConstant {
  Expr k;
  Expr log_k;  // invalid where ln k is not built
};

// `index` is the reaction's position in mechanism.reactions; errors name it (reaction_label).
using RateBuilder = RateConstant (*)(const Reaction& reaction, const RateContext& context,
                                     size_t index);

// The builder of a type (the table); throws MechanismError for a type without one.
RateBuilder rate_builder(ReactionType type);

// Forward rate constant of mechanism.reactions[index], by its type's builder.
RateConstant forward_rate_constant(const RateContext& context, size_t index);

// [M] = sum_k efficiency_k C_k of reaction `index`, as Cantera sums it: default * C_tot + sum
// over the listed species of (efficiency - default) C_k.
Expr third_body_concentration(const RateContext& context, size_t index);

// "FILE: reaction N 'EQUATION'" (N counted from 1, as the loader's messages), for errors.
std::string reaction_label(const Mechanism& mechanism, size_t index);

// Index of species `name` in reaction `index`'s mechanism; throws MechanismError naming the
// reaction when there is none (a Mechanism assembled by hand may name any species).
size_t reaction_species(const Mechanism& mechanism, const std::string& name, size_t index);

}  // namespace dualjit::kinetics
