// The rate laws of the shipped mechanisms (and tests/data/kinetics/rate_types.yaml, every
// reaction type) against Cantera 3.2 at random states, 300-3000 K and 0.1-100 atm
// (kinetics_reference.h): net production rates (with mass and element conservation) and heat
// release rate in each state form, and the forward and reverse rate constants of every
// reaction, in each of its forms (rate_laws.h RateLawForm). Evaluated by the reference
// evaluator (no compile), so every mechanism is cheap.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "dsl/reference_evaluator.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "jit/lowering.h"
#include "kinetics_reference.h"
#include "temp_mechanism.h"

namespace {

using namespace dualjit;
using namespace dualjit::kinetics;
using test::KineticsReference;

const char* const kMechanisms[] = {"h2o2", "gri30", "ammonia-CO-H2-Alzueta-2023", "nDodecane_Reitz",
                                   "rate_types"};
const RateLawForm kRateLawForms[] = {RateLawForm::derivatives, RateLawForm::values,
                                     RateLawForm::columns};

Mechanism load(const KineticsReference& ref) {
  const Mechanism m = load_mechanism(ref.mechanism, ref.phase);
  REQUIRE(m.species.size() == ref.species.size());
  for (size_t k = 0; k < m.species.size(); ++k) REQUIRE(m.species[k].name == ref.species[k]);
  REQUIRE(m.reactions.size() == ref.n_reactions);
  return m;
}

// The reaction's type, with the blending function of falloff and chemically-activated ones.
std::string type_name(const Reaction& r) {
  static const std::map<ReactionType, std::string> types = {
      {ReactionType::elementary, "elementary"},
      {ReactionType::three_body, "three-body"},
      {ReactionType::falloff, "falloff"},
      {ReactionType::chemically_activated, "chemically-activated"},
      {ReactionType::plog, "PLOG"},
      {ReactionType::chebyshev, "Chebyshev"}};
  static const std::map<FalloffForm, std::string> forms = {{FalloffForm::lindemann, "Lindemann"},
                                                           {FalloffForm::troe, "Troe"},
                                                           {FalloffForm::sri, "SRI"}};
  const bool blended =
      r.type == ReactionType::falloff || r.type == ReactionType::chemically_activated;
  return types.at(r.type) + (blended ? "-" + forms.at(r.falloff.form) : "");
}

// "name: key error, key error, ..." for the test's one summary message.
std::string summary(const std::string& name, const std::map<std::string, double>& worst) {
  std::ostringstream out;
  out.precision(2);
  out << name << ":";
  for (const auto& [key, e] : worst) out << " " << key << " " << e;
  return out.str();
}

}  // namespace

TEST_SUITE("kinetics") {
  TEST_CASE("production rates and heat release rate against Cantera, every state form") {
    for (const std::string name : kMechanisms) {
      CAPTURE(name);
      const KineticsReference ref = test::read_kinetics_reference(name);
      CAPTURE(ref.path);
      const Mechanism m = load(ref);
      const auto atoms = test::conservation_rows(m);
      for (RateLawForm form : kRateLawForms) {
        CAPTURE(rate_law_form_name(form));
        std::map<std::string, double> worst;
        for (ReactorState state : {ReactorState::constant_pressure, ReactorState::concentrations,
                                   ReactorState::constant_volume}) {
          CAPTURE(reactor_state_name(state));
          const Kernel k = production_rates_kernel(m, {state, form});
          for (size_t i = 0; i < ref.states.size(); ++i) {
            const auto& s = ref.states[i];
            CAPTURE(i);
            CAPTURE(s.T);
            CAPTURE(s.p);
            const auto x =
                state == ReactorState::concentrations ? test::tc_state(m, s) : test::ty_state(s);
            std::vector<double> u;
            if (state == ReactorState::constant_pressure) u = {s.p};
            if (state == ReactorState::constant_volume) u = {test::density(m, s)};
            auto out = evaluate_values(k, {x, {}, u});
            REQUIRE(out.size() == m.species.size() + 1);
            const double q = out.back();
            out.pop_back();
            // The measure, a norm over species, and the largest error of any species
            // relative to the largest rate.
            const double err_norm = test::relative_norm(out, s.wdot);
            const double err = test::relative_to_max(out, s.wdot);
            CHECK(err_norm <= 1e-12);
            CHECK(err <= 1e-12);
            // The heat release rate relative to its largest term |h_k wdot_k|.
            const auto h = test::enthalpies(m, s.T);
            double scale = 0;
            for (size_t k = 0; k < h.size(); ++k)
              scale = std::max(scale, std::abs(h[k] * s.wdot[k]));
            const double err_q = std::abs(q - s.hrr) / scale;
            CHECK(err_q < 1e-12);
            // Mass and every element are conserved to round-off: sum_k a_jk wdot_k relative to
            // its largest term (the mass, sum_k W_k wdot_k, is the row of molecular weights).
            for (size_t j = 0; j < atoms.size(); ++j) {
              const std::string element = j < m.elements.size() ? m.elements[j].name : "mass";
              CAPTURE(element);
              const double e = test::conservation_error(atoms[j], out);
              CHECK(e <= 1e-13);
              const std::string key = j < m.elements.size() ? "elements" : "mass";
              worst[key] = std::max(worst[key], e);
            }
            worst["wdot"] = std::max(worst["wdot"], err);
            worst["wdot_norm"] = std::max(worst["wdot_norm"], err_norm);
            worst["q"] = std::max(worst["q"], err_q);
            // Reported apart: the range's lowest temperature, where rate constants span the most.
            if (s.T <= 300.0) worst["wdot_norm_300K"] = std::max(worst["wdot_norm_300K"], err_norm);
          }
        }
        MESSAGE(summary(name + " (" + std::string(rate_law_form_name(form)) + " form)", worst));
      }
    }
  }

  TEST_CASE("forward and reverse rate constants of every reaction type against Cantera") {
    for (const std::string name : kMechanisms) {
      CAPTURE(name);
      const KineticsReference ref = test::read_kinetics_reference(name);
      CAPTURE(ref.path);
      const Mechanism m = load(ref);
      for (RateLawForm form : kRateLawForms) {
        CAPTURE(rate_law_form_name(form));
        const Kernel k = rate_constants_kernel(m, {ReactorState::constant_pressure, form});
        const size_t nr = m.reactions.size();
        std::map<std::string, double> worst;
        for (size_t state = 0; state < ref.states.size(); ++state) {
          const auto& s = ref.states[state];
          CAPTURE(state);
          const std::vector<double> p = {s.p};
          const auto out = evaluate_values(k, {test::ty_state(s), {}, p});
          REQUIRE(out.size() == 2 * nr);
          for (size_t i = 0; i < nr; ++i) {
            const Reaction& r = m.reactions[i];
            CAPTURE(i + 1);
            CAPTURE(r.equation);
            CAPTURE(s.T);
            CAPTURE(s.p);
            const std::string type = type_name(r);
            CAPTURE(type);
            const double ef = std::abs(out[i] - s.kf[i]) / std::abs(s.kf[i]);
            CHECK(ef < 1e-12);
            worst[type] = std::max(worst[type], ef);
            if (r.reversible) {
              const double er = std::abs(out[nr + i] - s.kr[i]) / std::abs(s.kr[i]);
              CHECK(er < 1e-12);  // 1/Kc adds the rounding of sum nu_k g_k/RT or of its factors
              worst["reverse"] = std::max(worst["reverse"], er);
            } else {
              CHECK(out[nr + i] == 0.0);
              CHECK(s.kr[i] == 0.0);
            }
          }
        }
        MESSAGE(summary(name + " (" + std::string(rate_law_form_name(form)) + " form)", worst));
        if (name == "rate_types") CHECK(worst.size() == 11);  // every type and form, and reverse
      }
    }
  }

  TEST_CASE("The values' form: Arrhenius rates with the same activation energy share their exp") {
    // Three irreversible reactions with one Ea (b = 0, 0, 1) against three with three: in the
    // values' form the first take one exp between them, in the derivatives' form one each.
    const auto reactions = [](double ea2, double ea3) {
      std::ostringstream os;
      os << "- equation: H2 + O => H + OH\n  rate-constant: {A: 1.0e+13, b: 0.0, Ea: 9000.0}\n"
         << "- equation: HO2 + H => 2 OH\n  rate-constant: {A: 5.0e+12, b: 0.0, Ea: " << ea2
         << "}\n"
         << "- equation: O + H2O => 2 OH\n  rate-constant: {A: 3.0e+9, b: 1.0, Ea: " << ea3
         << "}\n";
      return os.str();
    };
    const test::TempMechanism same(reactions(9000.0, 9000.0)), distinct(reactions(8000.0, 7000.0));
    jit::LoweringOptions o;
    o.mode = Mode::Value;
    const auto specials = [&](const test::TempMechanism& f, RateLawForm form) {
      const Mechanism m = load_mechanism(f.path.string());
      return jit::lower(production_rates_kernel(m, {ReactorState::constant_pressure, form}), o)
          .ops.special;
    };
    CHECK(specials(distinct, RateLawForm::values) - specials(same, RateLawForm::values) == 2);
    CHECK(specials(distinct, RateLawForm::derivatives) == specials(same, RateLawForm::derivatives));
  }

  TEST_CASE("The values' form: fewer special functions and operations, a kernel name of its own") {
    // What the form is for: GRI-3.0's rates with one exp per species instead of one per
    // reversible reaction (bench/RESULTS.md: 711 special functions per cell, 454), and the heat
    // release summed over species, not over reactions.
    const Mechanism m = load_mechanism("gri30.yaml");
    jit::LoweringOptions o;
    o.mode = Mode::Value;
    const Kernel derivatives_form = production_rates_kernel(m);
    const Kernel values_form =
        production_rates_kernel(m, {ReactorState::constant_pressure, RateLawForm::values});
    CHECK(values_form.name() == derivatives_form.name() + "_values");
    const jit::OpCounts derivatives_ops = jit::lower(derivatives_form, o).ops,
                        values_ops = jit::lower(values_form, o).ops;
    MESSAGE("GRI-3.0 rates: " << derivatives_ops.special << " special functions and "
                              << derivatives_ops.flops() << " operations per cell in the "
                              << "derivatives' form, " << values_ops.special << " and "
                              << values_ops.flops() << " in the values' form");
    CHECK(values_ops.special < derivatives_ops.special - 200);
    CHECK(values_ops.flops() < derivatives_ops.flops() - 1000);
    // The forms by name, as the benchmarks' --form takes them.
    for (RateLawForm form : kRateLawForms)
      CHECK(rate_law_form_named(rate_law_form_name(form)) == form);
    CHECK_THROWS_WITH_AS(rate_law_form_named("value"),
                         doctest::Contains("rate-law form 'value': derivatives, values or columns"),
                         std::invalid_argument);
  }
}
