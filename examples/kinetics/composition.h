// Compositions as Cantera writes them, "CH4:1, O2:2, N2:7.52": species names and amounts,
// separated by commas (and spaces); amounts are normalised, species not named are 0.
#pragma once

#include <string>
#include <vector>

#include "examples/kinetics/mechanism.h"

namespace dualjit::kinetics {

// The amounts per species in the mechanism's order, as given (not normalised). Throws
// MechanismError naming the mechanism and the entry: an unknown or repeated species, an amount
// that is not a finite number >= 0, a missing ':', or nothing positive at all.
std::vector<double> parse_composition(const Mechanism& mechanism, const std::string& text);

// Mass fractions of the mixture whose mole fractions `text` gives (normalised), and of the one
// whose mass fractions it gives.
std::vector<double> mass_fractions_from_moles(const Mechanism& mechanism, const std::string& text);
std::vector<double> mass_fractions(const Mechanism& mechanism, const std::string& text);

}  // namespace dualjit::kinetics
