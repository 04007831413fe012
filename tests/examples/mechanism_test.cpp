// Cantera YAML mechanisms: counts and SI values against numbers converted by hand from the
// shipped files, phase selection, the search path, and one clear error per kind of bad input.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "examples/kinetics/data_path.h"
#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/units.h"

namespace {

using namespace dualjit::kinetics;
namespace fs = std::filesystem;

constexpr double kCalPerMol = 4184.0;  // J/kmol per cal/mol

const Reaction& reaction(const Mechanism& m, const std::string& equation, int nth = 0) {
  for (const auto& r : m.reactions)
    if (r.equation == equation && nth-- == 0) return r;
  FAIL("no reaction '" << equation << "'");
  throw;
}

double coeff(const Stoichiometry& side, const std::string& name) {
  for (const auto& [n, c] : side)
    if (n == name) return c;
  return 0;
}

// A fresh folder per test, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("dualjit_mechanism_" + std::to_string(getpid()) + "_" + std::to_string(counter()++));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
  fs::path write(const std::string& name, const std::string& content) const {
    std::ofstream(path / name) << content;
    return path / name;
  }
};

struct ScopedEnv {
  const char* name;
  std::string old;
  bool had;
  ScopedEnv(const char* n, const std::string& value) : name(n) {
    const char* v = std::getenv(n);
    had = v != nullptr;
    if (had) old = v;
    setenv(n, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had)
      setenv(name, old.c_str(), 1);
    else
      unsetenv(name);
  }
};

// A small valid mechanism; tests replace one piece of it to make it invalid.
const std::string kHeader =
    R"(units: {length: cm, time: s, quantity: mol, activation-energy: cal/mol}
phases:
- name: gas
  thermo: ideal-gas
  elements: [O, H, N]
  species: [H2, H, O, O2, OH, NO, N, ON]
  kinetics: gas
species:
)";

std::string species(const std::string& name, const std::string& composition) {
  return "- name: " + name + "\n  composition: " + composition +
         "\n  thermo:\n    model: NASA7\n    temperature-ranges: [200.0, 1000.0, 3500.0]\n"
         "    data:\n    - [1, 2, 3, 4, 5, 6, 7]\n    - [8, 9, 10, 11, 12, 13, 14]\n";
}

std::string small_mechanism(const std::string& reactions) {
  return kHeader + species("H2", "{H: 2}") + species("H", "{H: 1}") + species("O", "{O: 1}") +
         species("O2", "{O: 2}") + species("OH", "{O: 1, H: 1}") + species("NO", "{N: 1, O: 1}") +
         species("N", "{N: 1}") + species("ON", "{O: 1, N: 1}") + "reactions:\n" +
         "- equation: O + H2 <=> H + OH\n  rate-constant: {A: 3.87e+04, b: 2.7, Ea: 6260.0}\n" +
         reactions;
}

// The message of the MechanismError that loading `content` throws ("" if none).
std::string load_error(const std::string& content) {
  TempDir dir;
  const auto path = dir.write("bad.yaml", content);
  try {
    load_mechanism(path.string());
  } catch (const MechanismError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("mechanism") {
  TEST_CASE("shipped mechanisms load with their species and reaction counts") {
    const Mechanism h2o2 = load_mechanism("h2o2.yaml");
    CHECK(h2o2.phase == "ohmech");
    CHECK(h2o2.elements.size() == 4);
    CHECK(h2o2.species.size() == 10);
    CHECK(h2o2.reactions.size() == 29);

    const Mechanism gri = load_mechanism("gri30.yaml");
    CHECK(gri.phase == "gri30");
    CHECK(gri.species.size() == 53);
    CHECK(gri.reactions.size() == 325);

    // The first phase, "baseline", takes common-reactions (275) and baseline-pdep-reactions (6).
    const Mechanism nh3 = load_mechanism("ammonia-CO-H2-Alzueta-2023.yaml");
    CHECK(nh3.phase == "baseline");
    CHECK(nh3.species.size() == 42);
    CHECK(nh3.reactions.size() == 281);
    int plog = 0;
    for (const auto& r : nh3.reactions) plog += r.type == ReactionType::plog;
    // 10, and "CH2O + H <=> H + CO + H2", which Cantera counts as a three-body PLOG (H as collider:
    // the same rate law).
    CHECK(plog == 11);

    const Mechanism dodecane = load_mechanism("nDodecane_Reitz.yaml:nDodecane_IG");
    CHECK(dodecane.phase == "nDodecane_IG");
    CHECK(dodecane.species.size() == 100);
    CHECK(dodecane.reactions.size() == 553);
  }

  TEST_CASE("rate parameters are converted to SI with kmol") {
    const Mechanism gri = load_mechanism("gri30.yaml");
    // 2 O + M <=> O2 + M: A 1.2e17 cm^6/mol^2/s (order 3 with M) = 1.2e11 m^6/kmol^2/s.
    const Reaction& r1 = gri.reactions[0];
    CHECK(r1.equation == "2 O + M <=> O2 + M");
    CHECK(r1.type == ReactionType::three_body);
    CHECK(coeff(r1.reactants, "O") == 2);
    CHECK(r1.products.size() == 1);
    CHECK(r1.rate.A == doctest::Approx(1.2e11).epsilon(1e-14));
    CHECK(r1.rate.b == -1.0);
    CHECK(r1.rate.Ea == 0.0);
    CHECK(r1.third_body.efficiencies.size() == 7);
    CHECK(r1.third_body.efficiencies.at("H2O") == 15.4);
    CHECK(r1.third_body.efficiencies.at("AR") == 0.83);
    CHECK(r1.third_body.default_efficiency == 1.0);

    // O + H2 <=> H + OH: A 3.87e4 cm^3/mol/s = 38.7 m^3/kmol/s; Ea 6260 cal/mol.
    const Reaction& r3 = gri.reactions[2];
    CHECK(r3.type == ReactionType::elementary);
    CHECK(r3.reversible);
    CHECK(r3.rate.A == doctest::Approx(38.7).epsilon(1e-14));
    CHECK(r3.rate.b == 2.7);
    CHECK(r3.rate.Ea == doctest::Approx(6260.0 * kCalPerMol).epsilon(1e-14));

    // H + CH3 (+M) <=> CH4 (+M), Troe with T2: k0 order 3, k_inf order 2.
    const Reaction& troe = reaction(gri, "H + CH3 (+M) <=> CH4 (+M)");
    CHECK(troe.type == ReactionType::falloff);
    CHECK(troe.low.A == doctest::Approx(2.62e27).epsilon(1e-14));
    CHECK(troe.low.b == -4.76);
    CHECK(troe.low.Ea == doctest::Approx(2440.0 * kCalPerMol).epsilon(1e-14));
    CHECK(troe.high.A == doctest::Approx(1.39e13).epsilon(1e-14));
    CHECK(troe.high.Ea == doctest::Approx(536.0 * kCalPerMol).epsilon(1e-14));
    CHECK(troe.falloff.form == FalloffForm::troe);
    CHECK(troe.falloff.troe_A == 0.783);
    CHECK(troe.falloff.troe_T3 == 74.0);
    CHECK(troe.falloff.troe_T1 == 2941.0);
    CHECK(troe.falloff.troe_has_t2);
    CHECK(troe.falloff.troe_T2 == 6964.0);
    CHECK(troe.third_body.efficiencies.at("CH4") == 3.0);

    // Species names with parentheses are not colliders.
    const Reaction& r8 = gri.reactions[7];
    CHECK(r8.equation == "O + CH2(S) <=> H2 + CO");
    CHECK(coeff(r8.reactants, "CH2(S)") == 1);

    // Duplicates in h2o2: OH + H2O2 <=> HO2 + H2O twice.
    const Mechanism h2o2 = load_mechanism("h2o2.yaml");
    CHECK(reaction(h2o2, "OH + H2O2 <=> HO2 + H2O", 0).duplicate);
    CHECK(reaction(h2o2, "OH + H2O2 <=> HO2 + H2O", 1).duplicate);
    CHECK_FALSE(reaction(h2o2, "2 OH <=> O + H2O").duplicate);
    CHECK(coeff(reaction(h2o2, "2 OH <=> O + H2O").reactants, "OH") == 2);
  }

  TEST_CASE("PLOG and negative A in the ammonia mechanism") {
    const Mechanism m = load_mechanism("ammonia-CO-H2-Alzueta-2023.yaml");
    const Reaction& r = reaction(m, "CO + OH <=> CO2 + H");
    CHECK(r.type == ReactionType::plog);
    REQUIRE(r.plog.size() == 5);
    // {P: 0.01315 atm, A: 2.1e+05, b: 1.9, Ea: -1064.0}
    CHECK(r.plog[0].pressure == doctest::Approx(0.01315 * 101325.0).epsilon(1e-14));
    CHECK(r.plog[0].rate.A == doctest::Approx(210.0).epsilon(1e-14));
    CHECK(r.plog[0].rate.b == 1.9);
    CHECK(r.plog[0].rate.Ea == doctest::Approx(-1064.0 * kCalPerMol).epsilon(1e-14));
    CHECK(r.plog[4].pressure == doctest::Approx(131.58 * 101325.0).epsilon(1e-14));

    // A Troe without T2.
    const Reaction& troe = reaction(m, "H + O2 (+M) <=> HO2 (+M)");
    CHECK(troe.falloff.form == FalloffForm::troe);
    CHECK_FALSE(troe.falloff.troe_has_t2);
    CHECK(troe.falloff.troe_T3 == 1.0e-30);
    CHECK(troe.third_body.efficiencies.at("AR") == 0.67);

    CHECK_FALSE(reaction(m, "NH2 + NO2 <=> H2NO + NO", 0).allow_negative_A);
    const Reaction& neg = reaction(m, "NH2 + NO2 <=> H2NO + NO", 1);
    CHECK(neg.duplicate);
    CHECK(neg.allow_negative_A);
    CHECK(neg.rate.A == doctest::Approx(-4.3e14).epsilon(1e-14));

    // YAML 1.1 would read NO as false; names stay strings.
    const int no = m.species_index("NO");
    REQUIRE(no >= 0);
    CHECK(m.species[no].composition.size() == 2);
    CHECK(m.species[no].molecular_weight == doctest::Approx(14.007 + 15.999));
    CHECK(m.species_index("N") >= 0);
    CHECK(m.species_index("O") >= 0);
    CHECK(m.species_index("HON") >= 0);

    // The other phase uses linear-Burke rates, which are refused by name.
    try {
      load_mechanism("ammonia-CO-H2-Alzueta-2023.yaml:linear-Burke");
      FAIL("linear-Burke loaded");
    } catch (const MechanismError& e) {
      const std::string msg = e.what();
      CHECK(msg.find("ammonia-CO-H2-Alzueta-2023.yaml: reaction 276 'H + OH (+M) <=> H2O (+M)'") !=
            std::string::npos);
      CHECK(msg.find("unsupported reaction type 'linear-Burke'") != std::string::npos);
    }
  }

  TEST_CASE("NASA7 coefficients and per-species ranges") {
    const Mechanism m = load_mechanism("h2o2.yaml");
    const Species& h2 = m.species[m.species_index("H2")];
    CHECK(h2.thermo.t_min == 200.0);
    CHECK(h2.thermo.t_mid == 1000.0);
    CHECK(h2.thermo.t_max == 3500.0);
    CHECK(h2.thermo.low[0] == 2.34433112);
    CHECK(h2.thermo.low[6] == 0.683010238);
    CHECK(h2.thermo.high[1] == -4.94024731e-05);
    CHECK(h2.thermo.high[5] == -950.158922);
    CHECK(h2.molecular_weight == doctest::Approx(2.016));
  }

  TEST_CASE("phases are chosen by name and non-ideal ones refused") {
    CHECK(load_mechanism("nDodecane_Reitz.yaml", "nDodecane_IG").species.size() == 100);
    for (const std::string spec : {"nDodecane_Reitz.yaml", "nDodecane_Reitz.yaml:nDodecane_RK"}) {
      try {
        load_mechanism(spec);
        FAIL("Redlich-Kwong phase loaded");
      } catch (const MechanismError& e) {
        const std::string msg = e.what();
        CHECK(msg.find("nDodecane_Reitz.yaml: phase 'nDodecane_RK': thermo 'Redlich-Kwong'") !=
              std::string::npos);
      }
    }
    CHECK_THROWS_WITH_AS(load_mechanism("h2o2.yaml:nosuch"),
                         doctest::Contains("no phase 'nosuch' (phases: ohmech, ohmech-RK)"),
                         MechanismError);
    CHECK_THROWS_AS(load_mechanism("h2o2.yaml:ohmech", "ohmech-RK"), MechanismError);
  }

  TEST_CASE("a bare file name is searched in DUALJIT_DATA_PATH before the project's data") {
    TempDir a, b;
    // Only b holds my_mech.yaml; a second h2o2.yaml in b shadows the shipped one.
    b.write("my_mech.yaml", small_mechanism(""));
    b.write("h2o2.yaml", small_mechanism(""));
    {
      ScopedEnv env("DUALJIT_DATA_PATH", a.path.string() + ":" + b.path.string());
      const Mechanism m = load_mechanism("my_mech.yaml:gas");
      CHECK(m.file == (b.path / "my_mech.yaml").string());
      CHECK(m.species.size() == 8);
      CHECK(load_mechanism("h2o2.yaml").reactions.size() == 1);
    }
    CHECK(load_mechanism("h2o2.yaml").reactions.size() == 29);
    CHECK_THROWS_WITH_AS(load_mechanism("my_mech.yaml"),
                         doctest::Contains("my_mech.yaml: mechanism file not found"),
                         MechanismError);
  }

  TEST_CASE("the small mechanism's names are strings and its values converted") {
    TempDir dir;
    const auto path = dir.write(
        "ok.yaml", small_mechanism("- equation: N + NO => ON + N\n"
                                   "  rate-constant: {A: 1.0e+13, b: 0, Ea: 1.0 kcal/mol}\n"
                                   "  orders: {N: 1.5}\n"));
    const Mechanism m = load_mechanism(path.string());
    REQUIRE(m.reactions.size() == 2);
    const Reaction& r = m.reactions[1];
    CHECK_FALSE(r.reversible);
    CHECK(coeff(r.reactants, "NO") == 1);
    CHECK(coeff(r.products, "ON") == 1);
    CHECK(r.orders.at("N") == 1.5);
    // Order 2.5: (1e-3 kmol / 1e-6 m^3)^(-1.5) = 10^-4.5.
    CHECK(r.rate.A == doctest::Approx(1.0e13 * std::pow(10.0, -4.5)).epsilon(1e-13));
    CHECK(r.rate.Ea == doctest::Approx(1e3 * kCalPerMol).epsilon(1e-14));
  }

  TEST_CASE("units convert activation energies and rate constants") {
    UnitSystem u;
    u.length = 1e-2;
    u.quantity = 1e-3;
    CHECK(u.rate_constant_factor(1) == doctest::Approx(1.0));
    CHECK(u.rate_constant_factor(2) == doctest::Approx(1e-3));
    CHECK(u.rate_constant_factor(3) == doctest::Approx(1e-6));
    CHECK(u.rate_constant_factor(0) == doctest::Approx(1e3));
    // No activation-energy: energy / quantity, here J/mol.
    CHECK(u.activation_energy_factor() == doctest::Approx(1e3));
    const std::string header = "units: {activation-energy: ";
    const std::string body = small_mechanism("").substr(kHeader.find("\nphases"));
    for (const auto& [unit, factor] :
         std::vector<std::pair<std::string, double>>{{"K", kGasConstant},
                                                     {"eV", 1.602176634e-19 * kAvogadro},
                                                     {"kJ/mol", 1e6},
                                                     {"J/mol", 1e3},
                                                     {"kcal/mol", 4.184e6}}) {
      TempDir dir;
      const auto path = dir.write("u.yaml", header + unit + "}" + body);
      const Mechanism m = load_mechanism(path.string());
      CHECK(m.reactions[0].rate.Ea == doctest::Approx(6260.0 * factor).epsilon(1e-14));
      // Length and quantity default to m and kmol.
      CHECK(m.reactions[0].rate.A == 3.87e4);
    }
  }

  TEST_CASE(
      "other reaction types: SRI, Lindemann, chemically activated, Chebyshev, explicit "
      "colliders") {
    TempDir dir;
    const auto path = dir.write(
        "types.yaml",
        small_mechanism(
            "- equation: H + O2 (+M) <=> OH + O (+M)\n  type: falloff\n"
            "  low-P-rate-constant: {A: 1.0e+16, b: 0, Ea: 0}\n"
            "  high-P-rate-constant: {A: 1.0e+13, b: 0, Ea: 0}\n"
            "  SRI: {A: 1.1, B: 2.2, C: 3.3, D: 4.4, E: 5.5}\n"
            "- equation: H + O2 (+ O) <=> OH + O (+ O)\n  type: falloff\n"
            "  low-P-rate-constant: {A: 1.0e+16, b: 0, Ea: 0}\n"
            "  high-P-rate-constant: {A: 1.0e+13, b: 0, Ea: 0}\n"
            "  SRI: {A: 1.1, B: 2.2, C: 3.3}\n"
            "- equation: H + OH (+M) <=> H2 + O (+M)\n  type: chemically-activated\n"
            "  low-P-rate-constant: {A: 1.0e+13, b: 0, Ea: 0}\n"
            "  high-P-rate-constant: {A: 1.0e+10, b: 0, Ea: 0}\n"
            "  efficiencies: {H2: 2.5}\n  default-efficiency: 0.5\n"
            "- equation: H + OH + O2 <=> H2 + O + O2\n  type: three-body\n"
            "  rate-constant: {A: 1.0e+18, b: 0, Ea: 0}\n"
            "- equation: H2 + O <=> H + OH\n  type: Chebyshev\n"
            "  temperature-range: [290.0, 3000.0]\n  pressure-range: [0.01 atm, 100 atm]\n"
            "  data:\n  - [8.0, 0.1]\n  - [-0.5, 0.2]\n  - [0.1, 0.3]\n"));
    const Mechanism m = load_mechanism(path.string());
    REQUIRE(m.reactions.size() == 6);
    const Reaction& sri5 = m.reactions[1];
    CHECK(sri5.falloff.form == FalloffForm::sri);
    CHECK(sri5.falloff.sri_E == 5.5);
    CHECK(sri5.low.A == doctest::Approx(1e10));
    CHECK(sri5.high.A == doctest::Approx(1e10));
    const Reaction& sri3 = m.reactions[2];
    CHECK(sri3.falloff.sri_D == 1.0);
    CHECK(sri3.falloff.sri_E == 0.0);
    CHECK(sri3.third_body.efficiencies.at("O") == 1.0);
    CHECK(sri3.third_body.default_efficiency == 0.0);
    const Reaction& ca = m.reactions[3];
    CHECK(ca.type == ReactionType::chemically_activated);
    CHECK(ca.low.A == doctest::Approx(1e10));   // order 2
    CHECK(ca.high.A == doctest::Approx(1e10));  // order 1
    CHECK(ca.third_body.default_efficiency == 0.5);
    const Reaction& tb = m.reactions[4];
    CHECK(tb.type == ReactionType::three_body);
    CHECK(coeff(tb.reactants, "O2") == 0);
    CHECK(tb.third_body.efficiencies.at("O2") == 1.0);
    CHECK(tb.rate.A == doctest::Approx(1e12));  // order 3
    const Reaction& cheb = m.reactions[5];
    CHECK(cheb.type == ReactionType::chebyshev);
    CHECK(cheb.chebyshev.p_max == doctest::Approx(100 * kOneAtm));
    REQUIRE(cheb.chebyshev.data.size() == 3);
    CHECK(cheb.chebyshev.data[0][0] == doctest::Approx(5.0));  // log10(1e-3) added
    CHECK(cheb.chebyshev.data[1][0] == -0.5);
  }

  TEST_CASE("malformed inputs name the file, the reaction and its equation") {
    struct Case {
      const char* what;
      std::string reaction, expected;
    };
    const std::vector<Case> cases = {
        {"missing field", "- equation: O + O2 <=> O + O2\n  rate-constant: {A: 1.0, b: 0}\n",
         "bad.yaml: reaction 2 'O + O2 <=> O + O2': rate-constant: missing 'Ea'"},
        {"unknown type",
         "- equation: O + O2 <=> O + O2\n  type: magic\n  rate-constant: {A: 1, b: 0, Ea: 0}\n",
         "bad.yaml: reaction 2 'O + O2 <=> O + O2': unsupported reaction type 'magic'"},
        {"unbalanced", "- equation: O + H2 <=> OH\n  rate-constant: {A: 1, b: 0, Ea: 0}\n",
         "bad.yaml: reaction 2 'O + H2 <=> OH': unbalanced: element H differs by 1"},
        {"unknown species", "- equation: O + CO <=> CO2\n  rate-constant: {A: 1, b: 0, Ea: 0}\n",
         "bad.yaml: reaction 2 'O + CO <=> CO2': equation: unknown species 'CO'"},
        {"not a number", "- equation: O + O2 <=> O + O2\n  rate-constant: {A: x1, b: 0, Ea: 0}\n",
         "bad.yaml: reaction 2 'O + O2 <=> O + O2': rate-constant: A: 'x1' is not a number"},
        {"bad Ea unit",
         "- equation: O + O2 <=> O + O2\n  rate-constant: {A: 1, b: 0, Ea: 3 furlongs}\n",
         "reaction 2 'O + O2 <=> O + O2': rate-constant: Ea: units: activation-energy: "
         "unsupported unit 'furlongs'"},
        {"no arrow", "- equation: O + O2\n  rate-constant: {A: 1, b: 0, Ea: 0}\n",
         "bad.yaml: reaction 2 'O + O2': equation: no '<=>', '=>' or '='"},
        {"falloff without (+M)",
         "- equation: H + O2 <=> OH + O\n  type: falloff\n"
         "  low-P-rate-constant: {A: 1, b: 0, Ea: 0}\n"
         "  high-P-rate-constant: {A: 1, b: 0, Ea: 0}\n",
         "bad.yaml: reaction 2 'H + O2 <=> OH + O': type 'falloff' needs '(+M)'"},
        {"Troe missing T1",
         "- equation: H + O2 (+M) <=> OH + O (+M)\n  type: falloff\n"
         "  low-P-rate-constant: {A: 1, b: 0, Ea: 0}\n"
         "  high-P-rate-constant: {A: 1, b: 0, Ea: 0}\n  Troe: {A: 0.5, T3: 1}\n",
         "bad.yaml: reaction 2 'H + O2 (+M) <=> OH + O (+M)': Troe: missing 'T1'"},
        {"SRI with 4",
         "- equation: H + O2 (+M) <=> OH + O (+M)\n  type: falloff\n"
         "  low-P-rate-constant: {A: 1, b: 0, Ea: 0}\n"
         "  high-P-rate-constant: {A: 1, b: 0, Ea: 0}\n  SRI: {A: 1, B: 2, C: 3, D: 4}\n",
         "reaction 2 'H + O2 (+M) <=> OH + O (+M)': SRI: 'D' and 'E' go together"},
        {"Tsang falloff",
         "- equation: H + O2 (+M) <=> OH + O (+M)\n  type: falloff\n"
         "  low-P-rate-constant: {A: 1, b: 0, Ea: 0}\n"
         "  high-P-rate-constant: {A: 1, b: 0, Ea: 0}\n  Tsang: {A: 0.5, B: 0.1}\n",
         "reaction 2 'H + O2 (+M) <=> OH + O (+M)': Tsang falloff is not supported"},
        {"PLOG bad pressure",
         "- equation: O + O2 <=> O + O2\n  type: pressure-dependent-Arrhenius\n"
         "  rate-constants:\n  - {P: 1 psi, A: 1, b: 0, Ea: 0}\n",
         "reaction 2 'O + O2 <=> O + O2': rate-constants 1: P: units: pressure: unsupported unit "
         "'psi'"},
        {"unknown efficiency species",
         "- equation: O + O + M <=> O2 + M\n  type: three-body\n"
         "  rate-constant: {A: 1, b: 0, Ea: 0}\n  efficiencies: {AR: 0.7}\n",
         "reaction 2 'O + O + M <=> O2 + M': efficiencies: unknown species 'AR'"},
        {"infinite A", "- equation: O + O2 <=> O + O2\n  rate-constant: {A: .inf, b: 0, Ea: 0}\n",
         "reaction 2 'O + O2 <=> O + O2': rate-constant: A: '.inf' is not a number"},
        {"three-body without collider",
         "- equation: H + O2 <=> OH + O\n  type: three-body\n  rate-constant: {A: 1, b: 0, Ea: "
         "0}\n",
         "reaction 2 'H + O2 <=> OH + O': three-body reaction without '+ M' or one explicit "
         "collider"},
        {"M on elementary",
         "- equation: O + O + M <=> O2 + M\n  type: elementary\n"
         "  rate-constant: {A: 1, b: 0, Ea: 0}\n",
         "reaction 2 'O + O + M <=> O2 + M': type 'elementary' does not take '+ M'"},
        {"negative A", "- equation: O + O2 <=> O + O2\n  rate-constant: {A: -1, b: 0, Ea: 0}\n",
         "reaction 2 'O + O2 <=> O + O2': negative pre-exponential factor"},
        {"orders on reversible",
         "- equation: O + O2 <=> O + O2\n  rate-constant: {A: 1, b: 0, Ea: 0}\n"
         "  orders: {O: 2}\n",
         "reaction 2 'O + O2 <=> O + O2': orders: only irreversible reactions"},
    };
    for (const auto& c : cases) {
      CAPTURE(c.what);
      const std::string msg = load_error(small_mechanism(c.reaction));
      CHECK_MESSAGE(msg.find(c.expected) != std::string::npos, msg);
    }
  }

  TEST_CASE("malformed files, species and units blocks") {
    const std::string ok = small_mechanism("");
    // Truncated YAML: cut inside a flow mapping.
    const std::string truncated = ok.substr(0, ok.find("b: 2.7"));
    CHECK(load_error(truncated).find("bad.yaml: invalid YAML at line") != std::string::npos);
    std::string bad_units = ok;
    bad_units.replace(bad_units.find("length: cm"), 10, "length: furlong");
    CHECK(load_error(bad_units).find("bad.yaml: units: length: unsupported unit 'furlong'") !=
          std::string::npos);
    std::string bad_dim = ok;
    bad_dim.replace(bad_dim.find("time: s"), 7, "colour: red");
    CHECK(load_error(bad_dim).find("units: unknown dimension 'colour'") != std::string::npos);
    std::string short_thermo = ok;
    short_thermo.replace(short_thermo.find("[1, 2, 3, 4, 5, 6, 7]"), 21, "[1, 2, 3]");
    CHECK(
        load_error(short_thermo).find("bad.yaml: species 'H2': thermo: data: expected two lists") !=
        std::string::npos);
    std::string bad_element = ok;
    bad_element.replace(bad_element.find("{H: 2}"), 6, "{Q: 2}");
    CHECK(load_error(bad_element)
              .find("species 'H2': composition: element 'Q' is not in the phase") !=
          std::string::npos);
    std::string missing_species = ok;
    missing_species.replace(missing_species.find("N, ON]"), 6, "N, ON, XY]");
    CHECK(load_error(missing_species).find("phase 'gas': species: no species 'XY' in file") !=
          std::string::npos);
    CHECK(load_error(ok) == "");
  }
}
