// A mechanism's derivatives' kernel (rate_law_kernels.h) is linear in its tapes, the rates of
// progress (jit/tape_linear_outputs.h): each species' net rate with the mechanism's net
// stoichiometric coefficients as scales, the heat release with T-dependent weights.
#include <doctest/doctest.h>

#include <map>

#include "examples/kinetics/rate_law_kernels.h"
#include "jit/tape_linear_outputs.h"

namespace {

using namespace dualjit;
using namespace dualjit::kinetics;

}  // namespace

TEST_CASE("GRI-3.0's net rates are its stoichiometry over the rates of progress' tapes") {
  const Mechanism m = load_mechanism("gri30.yaml");
  const Kernel k = production_rates_kernel(m);
  const jit::TapePattern p = jit::tape_pattern(k);
  REQUIRE(p.tapes.size() == m.reactions.size());  // a tape per reaction, in order
  const std::vector<jit::TapeLinearOutput> outs = jit::tape_linear_outputs(k, p);
  const size_t ns = m.species.size();
  REQUIRE(outs.size() == ns + 1);
  std::vector<std::map<int, double>> nu(ns);
  for (size_t r = 0; r < m.reactions.size(); ++r) {
    for (const auto& [name, v] : m.reactions[r].products)
      nu[size_t(m.species_index(name))][int(r)] += v;
    for (const auto& [name, v] : m.reactions[r].reactants)
      nu[size_t(m.species_index(name))][int(r)] -= v;
  }
  for (size_t s = 0; s < ns; ++s) {
    CAPTURE(m.species[s].name);
    REQUIRE(outs[s].linear);
    std::map<int, double> got;
    for (const jit::TapeTerm& t : outs[s].terms) {
      CHECK(t.factors.empty());
      got[t.tape] += t.scale;
    }
    std::erase_if(nu[s], [](const auto& kv) { return kv.second == 0.0; });
    CHECK(got == nu[s]);
    // A species that no reaction changes is a constant zero.
    CHECK(outs[s].rest.size() == (nu[s].empty() ? 1u : 0u));
  }
  // The heat release, -RT sum_r (dh_r / RT) q_r: every reaction that changes the enthalpy,
  // weighted by nodes of T.
  const jit::TapeLinearOutput& heat = outs[ns];
  REQUIRE(heat.linear);
  CHECK(heat.rest.empty());
  CHECK(heat.terms.size() == m.reactions.size());
  for (const jit::TapeTerm& t : heat.terms) CHECK(t.factors.size() == 2);
}
