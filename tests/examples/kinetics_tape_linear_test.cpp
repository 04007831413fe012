// A mechanism's derivatives' kernel (rate_law_kernels.h) is linear in its tapes, the rates of
// progress and the heat release's sum over them (jit/tape_linear_outputs.h): each species'
// net rate with the mechanism's net stoichiometric coefficients as scales, the heat release
// as -RT times its own tape.
#include <doctest/doctest.h>

#include <algorithm>
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
  // A tape per reaction, in order, then the heat release's sum_r (dh_r / RT) q_r.
  REQUIRE(p.tapes.size() == m.reactions.size() + 1);
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
  // The heat release, -RT sum_r (dh_r / RT) q_r: the last tape times a node of T, whose
  // tangent holds every direction the reactions' do.
  const jit::TapeLinearOutput& heat = outs[ns];
  REQUIRE(heat.linear);
  CHECK(heat.rest.empty());
  REQUIRE(heat.terms.size() == 1);
  CHECK(heat.terms[0].tape == int(m.reactions.size()));
  CHECK(heat.terms[0].factors.size() == 1);
  for (size_t r = 0; r < m.reactions.size(); ++r)
    for (const jit::TapeEntry& e : p.entries[r])
      CHECK(std::find(p.entries.back().begin(), p.entries.back().end(), e) !=
            p.entries.back().end());
}
