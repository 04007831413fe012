// Cantera's values for the kinetics tests, as tests/data/kinetics/make_references.py wrote them
// (<stem>.ref.txt), and the states they were computed at in each form the rate laws take.
// The files are read from $DUALJIT_KINETICS_REFERENCES when set (the ctest test
// kinetics_cantera writes them there with Cantera), else the committed tests/data/kinetics.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "examples/kinetics/cell_state.h"
#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/units.h"

namespace dualjit::test {

struct KineticsState {
  double T = 0, p = 0;
  std::vector<double> Y, wdot, kf, kr;
  double hrr = 0;
  // Cantera's derivatives of wdot, at a few states only (else empty): ddT at constant
  // p and C, ddP at constant T and C, ddC along C at constant T, p and X, and ddCi (ns x ns,
  // row-major) with respect to each C_i at constant T, p and the other C.
  std::vector<double> ddT, ddP, ddC, ddCi;
};

struct KineticsReference {
  std::string path;              // the file read
  std::string mechanism, phase;  // as load_mechanism takes them
  std::vector<std::string> species;
  size_t n_reactions = 0;
  std::vector<KineticsState> states;
};

// Where the mechanisms only the tests use (rate_types.yaml) are.
inline std::string kinetics_data_dir() {
  return std::string(DUALJIT_TEST_DATA_DIR) + "/kinetics";
}

inline std::string kinetics_reference_dir() {
  const char* dir = std::getenv("DUALJIT_KINETICS_REFERENCES");
  return dir && *dir ? dir : kinetics_data_dir();
}

// Reads <stem>.ref.txt; the mechanism is a shipped one, or in tests/data/kinetics.
inline KineticsReference read_kinetics_reference(const std::string& stem) {
  const std::string path = kinetics_reference_dir() + "/" + stem + ".ref.txt";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in, "cannot read " << path);
  KineticsReference ref;
  ref.path = path;
  std::string line;
  auto numbers = [](std::istringstream& s) {
    std::vector<double> v;
    for (std::string w; s >> w;) v.push_back(std::stod(w));
    return v;
  };
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string key;
    s >> key;
    if (key == "mechanism") {
      s >> ref.mechanism;
      if (stem == "rate_types") ref.mechanism = kinetics_data_dir() + "/" + ref.mechanism;
    } else if (key == "phase") {
      s >> ref.phase;
    } else if (key == "species") {
      for (std::string w; s >> w;) ref.species.push_back(w);
    } else if (key == "reactions") {
      s >> ref.n_reactions;
    } else if (key == "state") {
      ref.states.emplace_back();
    } else if (key == "T" || key == "p" || key == "hrr") {
      const double v = numbers(s).at(0);
      auto& st = ref.states.back();
      (key == "T" ? st.T : key == "p" ? st.p : st.hrr) = v;
    } else if (key == "Y" || key == "wdot" || key == "kf" || key == "kr") {
      auto& st = ref.states.back();
      (key == "Y" ? st.Y : key == "wdot" ? st.wdot : key == "kf" ? st.kf : st.kr) = numbers(s);
    } else if (key == "ddT" || key == "ddP" || key == "ddC" || key == "ddCi") {
      auto& st = ref.states.back();
      (key == "ddT"   ? st.ddT
       : key == "ddP" ? st.ddP
       : key == "ddC" ? st.ddC
                      : st.ddCi) = numbers(s);
    }
  }
  const size_t ns = ref.species.size();
  for (size_t i = 0; i < ref.states.size(); ++i) {
    const auto& st = ref.states[i];
    CAPTURE(path);
    CAPTURE(i);
    REQUIRE((st.Y.size() == ns && st.wdot.size() == ns));
    REQUIRE((st.kf.size() == ref.n_reactions && st.kr.size() == ref.n_reactions));
    if (!st.ddCi.empty())
      REQUIRE((st.ddT.size() == ns && st.ddP.size() == ns && st.ddC.size() == ns &&
               st.ddCi.size() == ns * ns));
  }
  return ref;
}

// The state vector (T, Y) and the concentrations and density it implies (ideal gas at p).
inline std::vector<double> ty_state(const KineticsState& s) {
  std::vector<double> x = {s.T};
  x.insert(x.end(), s.Y.begin(), s.Y.end());
  return x;
}

inline double mean_inverse_weight(const kinetics::Mechanism& m, const KineticsState& s) {
  double sum = 0;
  for (size_t k = 0; k < m.species.size(); ++k) sum += s.Y[k] / m.species[k].molecular_weight;
  return sum;
}

inline double density(const kinetics::Mechanism& m, const KineticsState& s) {
  return s.p / (kinetics::kGasConstant * s.T * mean_inverse_weight(m, s));
}

inline std::vector<double> tc_state(const kinetics::Mechanism& m, const KineticsState& s) {
  const double rho = density(m, s);
  std::vector<double> x = {s.T};
  for (size_t k = 0; k < m.species.size(); ++k)
    x.push_back(rho * s.Y[k] / m.species[k].molecular_weight);
  return x;
}

// Random positive states: T in 900-2400 K, Y log-uniform over three decades (normalised), or the
// concentrations of such a mixture at p.
inline std::vector<double> random_state(const kinetics::Mechanism& m, kinetics::ReactorState form,
                                        double p, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> T(900.0, 2400.0), e(-3.0, 0.0);
  KineticsState s;
  s.T = T(rng);
  s.p = p;
  double sum = 0;
  for (size_t k = 0; k < m.species.size(); ++k) sum += s.Y.emplace_back(std::pow(10.0, e(rng)));
  for (double& y : s.Y) y /= sum;
  return form == kinetics::ReactorState::concentrations ? tc_state(m, s) : ty_state(s);
}

// h_k (J/kmol) from the loaded NASA7 data, for scales of the heat release rate.
inline std::vector<double> enthalpies(const kinetics::Mechanism& m, double T) {
  std::vector<double> h;
  for (const auto& s : m.species) {
    const auto& a = T <= s.thermo.t_mid ? s.thermo.low : s.thermo.high;
    const double h_RT =
        a[0] + T * (a[1] / 2 + T * (a[2] / 3 + T * (a[3] / 4 + T * a[4] / 5))) + a[5] / T;
    h.push_back(h_RT * kinetics::kGasConstant * T);
  }
  return h;
}

// What the rates conserve: per element j, its atoms a_jk in each species k (rows in the
// mechanism's element order), then a last row, the molecular weights W_k (mass).
inline std::vector<std::vector<double>> conservation_rows(const kinetics::Mechanism& m) {
  std::vector<std::vector<double>> a(m.elements.size() + 1,
                                     std::vector<double>(m.species.size(), 0.0));
  for (size_t k = 0; k < m.species.size(); ++k) {
    for (const auto& [element, n] : m.species[k].composition) {
      size_t j = 0;
      while (j < m.elements.size() && m.elements[j].name != element) ++j;
      REQUIRE_MESSAGE(j < m.elements.size(), m.species[k].name << " has unknown " << element);
      a[j][k] = n;
    }
    a.back()[k] = m.species[k].molecular_weight;
  }
  return a;
}

// |sum_k a_k wdot_k| / max_k |a_k wdot_k| (0 when every term is 0).
inline double conservation_error(const std::vector<double>& a, const std::vector<double>& wdot) {
  double sum = 0, scale = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    sum += a[k] * wdot[k];
    scale = std::max(scale, std::abs(a[k] * wdot[k]));
  }
  return scale > 0 ? std::abs(sum) / scale : 0.0;
}

// ||a - b||_2 / ||b||_2: the measure of wdot against Cantera (a norm over species).
inline double relative_norm(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, s = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    d += (a.at(i) - b[i]) * (a.at(i) - b[i]);
    s += b[i] * b[i];
  }
  return s > 0 ? std::sqrt(d / s) : std::sqrt(d);
}

// max_i |a_i - b_i| / max_i |b_i|: the error relative to the largest component.
inline double relative_to_max(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, s = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    d = std::max(d, std::abs(a.at(i) - b[i]));
    s = std::max(s, std::abs(b[i]));
  }
  return s > 0 ? d / s : d;
}

}  // namespace dualjit::test
