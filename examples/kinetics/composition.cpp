#include "examples/kinetics/composition.h"

#include <cmath>
#include <sstream>

namespace dualjit::kinetics {
namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  const auto b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::vector<double> normalised(const Mechanism& m, std::vector<double> v, const std::string& text) {
  double sum = 0;
  for (double x : v) sum += x;
  if (!(sum > 0))
    throw MechanismError(m.file + ": composition '" + text + "' has no positive amount");
  for (double& x : v) x /= sum;
  return v;
}

}  // namespace

std::vector<double> parse_composition(const Mechanism& m, const std::string& text) {
  std::vector<double> amounts(m.species.size(), 0.0);
  std::vector<bool> seen(m.species.size(), false);
  std::istringstream in(text);
  for (std::string entry; std::getline(in, entry, ',');) {
    entry = trim(entry);
    if (entry.empty()) continue;
    const std::string where = m.file + ": composition entry '" + entry + "'";
    const auto colon = entry.rfind(':');
    if (colon == std::string::npos) throw MechanismError(where + " has no ':'");
    const std::string name = trim(entry.substr(0, colon));
    const int k = m.species_index(name);
    if (k < 0) throw MechanismError(where + ": no species '" + name + "' in phase " + m.phase);
    if (seen[k]) throw MechanismError(where + ": " + name + " given twice");
    seen[k] = true;
    const std::string number = trim(entry.substr(colon + 1));
    size_t used = 0;
    double value = 0;
    try {
      value = std::stod(number, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != number.size() || !std::isfinite(value) || value < 0)
      throw MechanismError(where + ": the amount must be a finite number >= 0");
    amounts[k] = value;
  }
  return amounts;
}

std::vector<double> mass_fractions_from_moles(const Mechanism& m, const std::string& text) {
  std::vector<double> x = normalised(m, parse_composition(m, text), text);
  for (size_t k = 0; k < x.size(); ++k) x[k] *= m.species[k].molecular_weight;
  return normalised(m, std::move(x), text);
}

std::vector<double> mass_fractions(const Mechanism& m, const std::string& text) {
  return normalised(m, parse_composition(m, text), text);
}

}  // namespace dualjit::kinetics
