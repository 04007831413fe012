// Cantera reaction equations ("2 OH (+M) <=> H2O2 (+M)"): the species and their coefficients on
// each side, the direction, and the third body as the equation writes it.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dualjit::kinetics {

// Species with their stoichiometric coefficients, in order of first appearance; a species
// written twice ("OH + OH") appears once with the summed coefficient.
using Stoichiometry = std::vector<std::pair<std::string, double>>;

struct Equation {
  Stoichiometry reactants, products;
  bool reversible = true;
  // "+ M" on both sides: a generic third body.
  bool third_body = false;
  // "(+M)" or "(+AR)" on both sides: the falloff collider ("M", or the one explicit species).
  std::string falloff_collider;
};

// Throws std::invalid_argument with a short reason (the caller adds file and reaction).
Equation parse_equation(const std::string& text);

}  // namespace dualjit::kinetics
