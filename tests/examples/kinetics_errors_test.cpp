// A reaction the rate laws cannot build is a MechanismError naming the mechanism file, the
// reaction's index (counted from 1) and its equation; nothing is half-built.
#include <doctest/doctest.h>
#include <string>

#include "examples/kinetics/rate_law_kernels.h"
#include "temp_mechanism.h"

namespace {

using namespace dualjit;
using namespace dualjit::kinetics;
using test::TempMechanism;

// The message of the MechanismError that building the production rates kernel throws.
std::string build_error(const Mechanism& m) {
  try {
    production_rates_kernel(m);
  } catch (const MechanismError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("kinetics") {
  TEST_CASE("a reaction the rate laws refuse is named by file, index and equation") {
    SUBCASE("PLOG rate that is negative at a tabulated pressure") {
      const TempMechanism f(
          "- equation: H2 + O2 <=> 2 OH\n"
          "  type: pressure-dependent-Arrhenius\n"
          "  rate-constants:\n"
          "  - {P: 1.0 atm, A: 1.0e+13, b: 0.0, Ea: 4.0e+04}\n"
          "  - {P: 10.0 atm, A: -1.0e+13, b: 0.0, Ea: 4.0e+04}\n");
      const std::string msg = build_error(load_mechanism(f.path.string()));
      CHECK(msg.find(f.path.string()) != std::string::npos);
      CHECK(msg.find("reaction 2 'H2 + O2 <=> 2 OH'") != std::string::npos);
      CHECK(msg.find("not positive at P = 1013250 Pa") != std::string::npos);
    }
    SUBCASE("falloff limits with pre-exponential factors of different signs") {
      const TempMechanism f(
          "- equation: H + O2 (+M) <=> HO2 (+M)\n"
          "  type: falloff\n"
          "  negative-A: true\n"
          "  low-P-rate-constant: {A: -6.366e+20, b: -1.72, Ea: 524.8}\n"
          "  high-P-rate-constant: {A: 4.7e+12, b: 0.44, Ea: 0.0}\n");
      const std::string msg = build_error(load_mechanism(f.path.string()));
      CHECK(msg.find(f.path.string() + ": reaction 2 'H + O2 (+M) <=> HO2 (+M)'") !=
            std::string::npos);
      CHECK(msg.find("differ in sign") != std::string::npos);
    }
    SUBCASE("a species the mechanism does not have (a Mechanism assembled by hand)") {
      const TempMechanism f("");
      Mechanism m = load_mechanism(f.path.string());
      m.reactions[0].products[0].first = "XO";
      const std::string msg = build_error(m);
      CHECK(msg.find("reaction 1 'H + O2 <=> O + OH': unknown species 'XO'") != std::string::npos);
    }
  }
}
