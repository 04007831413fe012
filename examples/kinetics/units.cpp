#include "examples/kinetics/units.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <map>
#include <sstream>

#include "examples/kinetics/mechanism_error.h"

namespace dualjit::kinetics {
namespace {

constexpr double kCalorie = 4.184;                 // J (thermochemical, as Cantera)
constexpr double kElectronVolt = 1.602176634e-19;  // J

const std::map<std::string, double>& units_of(const std::string& dimension) {
  static const std::map<std::string, std::map<std::string, double>> table = {
      {"length", {{"m", 1.0}, {"cm", 1e-2}, {"mm", 1e-3}}},
      {"quantity", {{"kmol", 1.0}, {"mol", 1e-3}, {"molec", 1.0 / kAvogadro}}},
      {"time", {{"s", 1.0}, {"ms", 1e-3}, {"min", 60.0}, {"h", 3600.0}}},
      {"energy", {{"J", 1.0}, {"kJ", 1e3}, {"cal", kCalorie}, {"kcal", 1e3 * kCalorie}}},
      {"pressure", {{"Pa", 1.0}, {"kPa", 1e3}, {"MPa", 1e6}, {"bar", 1e5}, {"atm", kOneAtm}}},
      {"activation-energy",
       {{"J/kmol", 1.0},
        {"J/mol", 1e3},
        {"kJ/mol", 1e6},
        {"cal/mol", 1e3 * kCalorie},
        {"kcal/mol", 1e6 * kCalorie},
        {"K", kGasConstant},
        {"eV", kElectronVolt * kAvogadro}}},
      // Accepted only at their SI value: no number in a mechanism is converted by them.
      {"mass", {{"kg", 1.0}}},
      {"temperature", {{"K", 1.0}}},
  };
  static const std::map<std::string, double> none;
  auto it = table.find(dimension);
  return it == table.end() ? none : it->second;
}

double unit_factor(const std::string& dimension, const std::string& unit,
                   const std::string& where) {
  const auto& units = units_of(dimension);
  if (units.empty()) throw MechanismError(where + ": units: unknown dimension '" + dimension + "'");
  auto it = units.find(unit);
  if (it == units.end()) {
    std::string known;
    for (const auto& [name, f] : units) known += (known.empty() ? "" : ", ") + name;
    throw MechanismError(where + ": units: " + dimension + ": unsupported unit '" + unit +
                         "' (supported: " + known + ")");
  }
  return it->second;
}

}  // namespace

double UnitSystem::rate_constant_factor(double order) const {
  return std::pow(quantity / (length * length * length), 1.0 - order) / time;
}

UnitSystem parse_units(const YAML::Node& node, const UnitSystem& base, const std::string& where) {
  if (!node.IsMap()) throw MechanismError(where + ": units: expected a mapping");
  UnitSystem u = base;
  for (const auto& kv : node) {
    const std::string dim = kv.first.as<std::string>();
    if (!kv.second.IsScalar())
      throw MechanismError(where + ": units: " + dim + ": expected a unit name");
    const double f = unit_factor(dim, kv.second.as<std::string>(), where);
    if (dim == "length") u.length = f;
    if (dim == "quantity") u.quantity = f;
    if (dim == "time") u.time = f;
    if (dim == "energy") u.energy = f;
    if (dim == "pressure") u.pressure = f;
    if (dim == "activation-energy") u.activation_energy = f;
  }
  return u;
}

double parse_quantity(const YAML::Node& node, double default_factor, const std::string& kind,
                      const std::string& where) {
  if (!node.IsScalar()) throw MechanismError(where + ": expected a number");
  std::istringstream in(node.as<std::string>());
  double value = 0;
  std::string unit, rest;
  if (!(in >> value) || !std::isfinite(value)) {
    throw MechanismError(where + ": '" + node.as<std::string>() + "' is not a number");
  }
  in >> unit >> rest;
  if (!rest.empty()) {
    throw MechanismError(where + ": '" + node.as<std::string>() + "': expected 'number unit'");
  }
  return value * (unit.empty() ? default_factor : unit_factor(kind, unit, where));
}

}  // namespace dualjit::kinetics
