// A chemical mechanism as read from Cantera's YAML format: the elements, species (NASA7 thermo)
// and reactions of one ideal-gas phase, with every rate parameter converted to SI with kmol
// (m, s, kmol, J/kmol, Pa). load_mechanism either returns all of it or throws MechanismError.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "examples/kinetics/equation.h"
#include "examples/kinetics/mechanism_error.h"

namespace dualjit::kinetics {

struct Element {
  std::string name;
  double atomic_weight = 0;  // kg/kmol
};

// Two NASA 7-coefficient polynomials: `low` on [t_min, t_mid], `high` on [t_mid, t_max].
struct Nasa7 {
  double t_min = 0, t_mid = 0, t_max = 0;
  std::array<double, 7> low{}, high{};
};

struct Species {
  std::string name;
  std::vector<std::pair<std::string, double>> composition;  // element name, atoms
  double molecular_weight = 0;                              // kg/kmol
  Nasa7 thermo;
};

// k = A T^b exp(-Ea / (R T)); A in (kmol/m^3)^(1 - order) / s, Ea in J/kmol.
struct Arrhenius {
  double A = 0, b = 0, Ea = 0;
};

enum class ReactionType {
  elementary,
  three_body,
  falloff,
  chemically_activated,
  plog,  // Cantera's pressure-dependent-Arrhenius
  chebyshev,
};

// The colliders of a three-body, falloff or chemically-activated reaction: [M] is
// sum_k efficiency_k C_k, efficiency_k = efficiencies[k] if listed, else default_efficiency.
// An explicit collider ("+ AR", "(+AR)") is {AR: 1} with default 0.
struct ThirdBody {
  std::map<std::string, double> efficiencies;
  double default_efficiency = 1.0;
};

enum class FalloffForm { lindemann, troe, sri };

struct Falloff {
  FalloffForm form = FalloffForm::lindemann;
  // Troe: A, T3, T1, and T2 when troe_has_t2.
  double troe_A = 0, troe_T3 = 0, troe_T1 = 0, troe_T2 = 0;
  bool troe_has_t2 = false;
  // SRI: A, B, C, D, E; D = 1, E = 0 when only three are given.
  double sri_A = 0, sri_B = 0, sri_C = 0, sri_D = 1, sri_E = 0;
};

// One PLOG line; several lines at the same pressure are summed (Cantera's rule).
struct PlogRate {
  double pressure = 0;  // Pa
  Arrhenius rate;
};

// log10 k = sum_ij data[i][j] T_i(T~) P_j(P~), with T~ and P~ the reduced 1/T and log10 P;
// data[0][0] already holds the SI conversion.
struct Chebyshev {
  double t_min = 0, t_max = 0;  // K
  double p_min = 0, p_max = 0;  // Pa
  std::vector<std::vector<double>> data;
};

struct Reaction {
  std::string equation;
  ReactionType type = ReactionType::elementary;
  Stoichiometry reactants, products;  // without "M" and without an explicit collider
  bool reversible = true;
  bool duplicate = false;
  bool allow_negative_A = false;
  // Explicit forward orders (irreversible reactions only), overriding the coefficients.
  std::map<std::string, double> orders;
  Arrhenius rate;              // elementary, three_body
  ThirdBody third_body;        // three_body, falloff, chemically_activated
  Arrhenius low, high;         // falloff, chemically_activated
  Falloff falloff;             // falloff, chemically_activated
  std::vector<PlogRate> plog;  // plog, ordered by pressure
  Chebyshev chebyshev;         // chebyshev
};

struct Mechanism {
  std::string file;  // the path read
  std::string phase;
  std::vector<Element> elements;
  std::vector<Species> species;
  std::vector<Reaction> reactions;

  // Index of a species by name, or -1.
  int species_index(const std::string& name) const;
};

// Reads `spec`, "FILE" or "FILE:PHASE" (FILE found by find_mechanism_file), and the named
// ideal-gas phase, else `phase`, else the file's first phase.
Mechanism load_mechanism(const std::string& spec, const std::string& phase = "");

}  // namespace dualjit::kinetics
