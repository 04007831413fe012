// NASA7 thermodynamics as DSL expressions (examples/kinetics/thermo.h) for every GRI-3.0
// species: the values of each range's polynomial in plain double, the range switch at Tmid
// (low range at Tmid itself, as Cantera), g/RT = h/RT - s/R, and the calculus that ties them:
// d(T h/RT)/dT = cp/R and d(g/RT)/dT = -h/RT / T; and each reaction's change sum_k nu_k g_k/RT
// as one polynomial per Tmid against the species' sum.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <set>

#include "dsl/reference_evaluator.h"
#include "examples/kinetics/rate_constants.h"
#include "examples/kinetics/thermo.h"

namespace {

using namespace dualjit;
using namespace dualjit::kinetics;

// cp/R, h/RT, s/R of one range at T, written as Cantera's NasaPoly1.
std::array<double, 3> nasa(const std::array<double, 7>& a, double T) {
  const double cp = a[0] + T * (a[1] + T * (a[2] + T * (a[3] + T * a[4])));
  const double h =
      a[0] + T * (a[1] / 2 + T * (a[2] / 3 + T * (a[3] / 4 + T * a[4] / 5))) + a[5] / T;
  const double s =
      a[0] * std::log(T) + T * (a[1] + T * (a[2] / 2 + T * (a[3] / 3 + T * a[4] / 4))) + a[6];
  return {cp, h, s};
}

// Kernel over input T: outputs T h/RT, cp/R, h/RT, s/R, g/RT of one species.
Kernel thermo_kernel(const Nasa7& poly) {
  return Kernel("nasa7", [&](KernelBuilder& kb) {
    const TemperatureTerms t(kb.input("T", 1)[0]);
    const Expr h = h_over_RT(poly, t);
    kb.output("thermo", {t.T * h, cp_over_R(poly, t), h, s_over_R(poly, t), g_over_RT(poly, t)});
  });
}

}  // namespace

TEST_SUITE("kinetics") {
  TEST_CASE("NASA7 cp/R, h/RT, s/R and g/RT as expressions of T") {
    const Mechanism m = load_mechanism("gri30.yaml");
    for (const Species& sp : m.species) {
      CAPTURE(sp.name);
      const Kernel k = thermo_kernel(sp.thermo);
      const double t_mid = sp.thermo.t_mid;
      for (double T : {0.6 * t_mid, t_mid, std::nextafter(t_mid, 1e9), 1.5 * t_mid, 2.5 * t_mid}) {
        CAPTURE(T);
        const std::vector<double> x = {T};
        const JacobianResult r = evaluate_jacobian(k, {x, {}, {}}, 0);
        const auto want = nasa(T <= t_mid ? sp.thermo.low : sp.thermo.high, T);
        const double cp = r.values[1], h = r.values[2], s = r.values[3], g = r.values[4];
        CHECK(cp == doctest::Approx(want[0]).epsilon(1e-13));
        CHECK(h == doctest::Approx(want[1]).epsilon(1e-13).scale(std::abs(want[1]) + 1));
        CHECK(s == doctest::Approx(want[2]).epsilon(1e-13));
        CHECK(g == doctest::Approx(h - s).epsilon(1e-13).scale(std::abs(h) + std::abs(s)));
        CHECK(r.jacobian[0] == doctest::Approx(cp).epsilon(1e-12));
        CHECK(r.jacobian[4] == doctest::Approx(-h / T).epsilon(1e-12).scale(std::abs(h / T)));
      }
    }
  }

  TEST_CASE("a reaction's g/RT change as one polynomial per Tmid equals its species' sum") {
    // GRI-3.0 has species with Tmid 1000, 1368, 1382 and 1478 K: temperatures on either side of
    // each, and each itself (the low range's), pick every combination of ranges a reaction meets.
    const Mechanism m = load_mechanism("gri30.yaml");
    std::set<double> t_mids;
    for (const Species& sp : m.species) t_mids.insert(sp.thermo.t_mid);
    REQUIRE(t_mids.size() >= 4);
    std::vector<double> temperatures = {350.0, 2900.0};
    for (double t_mid : t_mids)
      for (double T : {0.97 * t_mid, t_mid, std::nextafter(t_mid, 1e9), 1.004 * t_mid})
        temperatures.push_back(T);
    for (size_t i = 0; i < m.reactions.size(); ++i) {
      const Reaction& r = m.reactions[i];
      std::map<size_t, double> net;
      for (const auto& [name, nu] : r.products) net[reaction_species(m, name, i)] += nu;
      for (const auto& [name, nu] : r.reactants) net[reaction_species(m, name, i)] -= nu;
      CAPTURE(r.equation);
      const Kernel k("g_change", [&](KernelBuilder& kb) {
        const TemperatureTerms t(kb.input("T", 1)[0]);
        Expr sum = t.T.constant(0.0);
        for (const auto& [s, nu] : net) sum = sum + nu * g_over_RT(m.species[s].thermo, t);
        const Expr change = g_over_RT_change(m, net, t);
        kb.output("g", {change.valid() ? change : t.T.constant(0.0), sum});
      });
      for (double T : temperatures) {
        CAPTURE(T);
        const std::vector<double> x = {T};
        const JacobianResult res = evaluate_jacobian(k, {x, {}, {}}, 0);
        double scale = 0;  // the species' terms' size: what the sums' round-off is relative to
        for (const auto& [s, nu] : net) {
          const auto& poly = m.species[s].thermo;
          const auto want = nasa(T <= poly.t_mid ? poly.low : poly.high, T);
          scale += std::abs(nu) * (std::abs(want[1]) + std::abs(want[2]));
        }
        CHECK(res.values[0] == doctest::Approx(res.values[1]).epsilon(1e-14).scale(scale));
        CHECK(res.jacobian[0] ==
              doctest::Approx(res.jacobian[1]).epsilon(1e-14).scale(scale / T + 1e-300));
      }
    }
  }
}
