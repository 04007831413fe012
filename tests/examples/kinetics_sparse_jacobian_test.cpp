// The sparse per-cell Jacobian (ReactorCells::sparse_jacobian, jit/jacobian_pattern.h): in the
// (T, C) form dwdot/dC keeps only what the stoichiometry and the third bodies couple. Its
// values are the dense Jacobian's entries; its pattern holds every coupling of the reactions.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "examples/kinetics/reactor_cells.h"
#include "examples/kinetics/units.h"
#include "kinetics_reference.h"

namespace {

using namespace dualjit;
using namespace dualjit::kinetics;

// n cells of test::random_state's concentrations at one atmosphere.
std::vector<double> tc_cells(const Mechanism& m, int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> x;
  for (int64_t c = 0; c < n; ++c) {
    const std::vector<double> s = test::random_state(m, ReactorState::concentrations, kOneAtm, rng);
    x.insert(x.end(), s.begin(), s.end());
  }
  return x;
}

}  // namespace

TEST_SUITE("kinetics") {
  TEST_CASE("sparse dwdot/dC (CPU): the dense Jacobian's entries, zeros outside the pattern") {
    const Mechanism m = load_mechanism("h2o2.yaml");
    ReactorCellsOptions o;
    o.rate_law.state = ReactorState::concentrations;
    o.assembler.backend = assembly::Backend::Cpu;
    const int64_t n = 50;
    ReactorCells cells(m, n, o);
    const auto x = tc_cells(m, n, 3);
    const auto dense = cells.jacobian(x), sparse = cells.sparse_jacobian(x);
    const jit::JacobianPattern p = cells.jacobian_pattern();
    const int b = cells.block_size();
    REQUIRE(sparse.size() == size_t(n * p.nnz()));
    // The dense blocks come from the tape columns, the sparse from the row groups: the same
    // entries to rounding; the zeros exact.
    double worst = 0;
    bool zeros_outside = true;
    for (int64_t c = 0; c < n; ++c) {
      double scale = 0;
      for (int i = 0; i < b * b; ++i) scale = std::max(scale, std::abs(dense[c * b * b + i]));
      for (int r = 0; r < b; ++r) {
        for (int j = 0; j < b; ++j) {
          const double v = dense[(c * b + r) * b + j];
          const int64_t at = p.index(r, j);
          if (at < 0) {
            zeros_outside = zeros_outside && v == 0.0;
          } else {
            worst = std::max(worst, std::abs(sparse[c * p.nnz() + at] - v) / scale);
          }
        }
      }
    }
    CHECK(worst < 1e-13);
    CHECK(zeros_outside);
    const auto km = cells.sparse_jacobian(x, assembly::BlockOrder::ComponentMajor);
    CHECK(km[5 * n + 7] == sparse[7 * p.nnz() + 5]);
  }

  TEST_CASE("GRI-3.0's dwdot/dC pattern holds every reaction's couplings and is sparse") {
    const Mechanism m = load_mechanism("gri30.yaml");
    const jit::JacobianPattern p =
        jit::jacobian_pattern(production_rates_kernel(m, {ReactorState::concentrations}));
    const int ns = int(m.species.size());
    // Species k with a net change in reaction r changes with C_j of each reactant j of nonzero
    // order (and of each product j of a reversible reaction): entry (k, 1 + j).
    bool all = true;
    for (const Reaction& r : m.reactions) {
      std::map<std::string, double> net;
      std::vector<std::string> sources;
      for (const auto& [s, nu] : r.reactants) {
        net[s] -= nu;
        const auto o = r.orders.find(s);
        if (o == r.orders.end() || o->second != 0) sources.push_back(s);
      }
      for (const auto& [s, nu] : r.products) {
        net[s] += nu;
        if (r.reversible) sources.push_back(s);
      }
      for (const auto& [k, nu] : net) {
        if (nu == 0) continue;
        for (const auto& j : sources) {
          const bool in = p.index(m.species_index(k), 1 + m.species_index(j)) >= 0;
          if (!in) MESSAGE("missing (" << k << ", " << j << ") of '" << r.equation << "'");
          all = all && in;
        }
      }
    }
    CHECK(all);
    // Without third bodies most of the block would be empty; with them the rows of species in
    // three-body and falloff reactions fill up (default efficiency 1: every species collides).
    const double density = double(p.nnz()) / ((ns + 1.0) * (ns + 1.0));
    MESSAGE("GRI-3.0 (T, C): " << p.nnz() << " of " << (ns + 1) * (ns + 1) << " entries ("
                               << density << ")");
    CHECK(p.nnz() < (ns + 1) * (ns + 1));
  }
}
