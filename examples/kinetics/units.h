// Cantera's `units` block: the units a mechanism file's numbers are written in, as factors that
// convert them to SI with kmol (the units dualjit's kinetics computes in: m, s, kmol, J/kmol).
#pragma once

#include <string>

namespace YAML {
class Node;
}

namespace dualjit::kinetics {

inline constexpr double kAvogadro = 6.02214076e26;        // 1/kmol
inline constexpr double kGasConstant = 8314.46261815324;  // J/(kmol K)
inline constexpr double kOneAtm = 101325.0;               // Pa

struct UnitSystem {
  // SI value of one unit of each dimension.
  double length = 1.0;    // m
  double quantity = 1.0;  // kmol
  double time = 1.0;      // s
  double energy = 1.0;    // J
  double pressure = 1.0;  // Pa
  // J/kmol per unit of activation energy; 0 means "not given": energy / quantity then.
  double activation_energy = 0.0;

  double activation_energy_factor() const {
    return activation_energy > 0 ? activation_energy : energy / quantity;
  }
  // Factor for a rate constant of the given reaction order, whose units are
  // concentration^(1 - order) / time (Cantera's convention), to (kmol/m^3)^(1 - order) / s.
  double rate_constant_factor(double order) const;
};

// `node` is a units mapping ({length: cm, quantity: mol, ...}) applied over `base`, as a
// reaction's own `units` overrides the file's. `where` prefixes error messages (file, entry).
UnitSystem parse_units(const YAML::Node& node, const UnitSystem& base, const std::string& where);

// A scalar that is a plain number (in `default_factor` units) or "number unit" (e.g. "1.0 atm",
// "10 kcal/mol"); `kind` is "pressure" or "activation-energy" and picks the units accepted.
double parse_quantity(const YAML::Node& node, double default_factor, const std::string& kind,
                      const std::string& where);

}  // namespace dualjit::kinetics
