// ReactorCells on the CPU backend: the compiled production rates of many cells against Cantera,
// and the dense per-cell Jacobian d(wdot, q)/d(state) against central differences of the
// compiled rates and against the reference evaluator: in each state form for h2o2, in the (T, C)
// form for GRI-3.0. GRI-3.0's (T, Y) Jacobian is not compiled here: the host compiler takes about
// 50 s for it on 2 cores (8 s for the (T, C) one, under 2 s for the rates). The rates come from
// the rate laws' graph for values and the Jacobians from the one for derivatives
// (rate_laws.h RateLawForm), so the differences of the rates also check the one graph against the
// other.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "dsl/reference_evaluator.h"
#include "examples/kinetics/reactor_cells.h"
#include "kinetics_reference.h"

namespace {

using namespace dualjit;
using namespace dualjit::kinetics;

ReactorCellsOptions on_cpu(ReactorState state) {
  ReactorCellsOptions o;
  o.rate_law.state = state;
  o.assembler.backend = assembly::Backend::Cpu;
  return o;
}

// The reference's states as cells (T, C): every state in one call, since this form takes no
// uniform.
std::vector<double> tc_cells(const Mechanism& m, const test::KineticsReference& ref) {
  std::vector<double> x;
  for (const auto& s : ref.states) {
    const auto c = test::tc_state(m, s);
    x.insert(x.end(), c.begin(), c.end());
  }
  return x;
}

void check_against_cantera(const std::vector<double>& rates, const test::KineticsState& s,
                           size_t ns) {
  const std::vector<double> wdot(rates.begin(), rates.begin() + ns);
  CHECK(test::relative_norm(wdot, s.wdot) <= 1e-12);
  CHECK(test::relative_to_max(wdot, s.wdot) < 1e-12);
  CHECK(rates[ns] == doctest::Approx(s.hrr).epsilon(1e-10));
}

// Every cell's (ns+1) x (ns+1) block against fourth-order central differences of the compiled
// rates (steps of 1e-3 relative to each component, all positive; the perturbed states of a cell
// in one call of `fd_cells`) and against the reference evaluator's Jacobian. Errors are relative
// to the column's scale: the largest entry among the wdot rows, and for the q row the largest of
// |dq/dx| and the terms |h_k dwdot_k/dx| that dq/dx = -sum_k (h_k dwdot_k/dx + wdot_k dh_k/dx)
// sums. Returns the largest errors found, against differences and against the reference
// evaluator.
std::pair<double, double> check_jacobian(const Mechanism& m, ReactorCells& cells,
                                         ReactorCells& fd_cells, const std::vector<double>& x,
                                         const std::vector<double>& uniforms) {
  const int B = cells.block_size();
  const int64_t n = cells.n_cells();
  constexpr double kOffsets[4] = {1, -1, 2, -2};
  REQUIRE(fd_cells.n_cells() == 4 * B);
  const auto J = cells.jacobian(x);
  const auto Jt = cells.jacobian(x, assembly::BlockOrder::ComponentMajor);
  const auto Jcol = cells.jacobian(x, assembly::BlockOrder::CellMajorColumns);
  double worst_fd = 0, worst_ref = 0;
  for (int64_t c = 0; c < n; ++c) {
    CAPTURE(c);
    const std::vector<double> xc(x.begin() + c * B, x.begin() + (c + 1) * B);
    std::vector<double> perturbed, step(B);
    for (int j = 0; j < B; ++j) {
      step[j] = 1e-3 * std::abs(xc[j]);
      for (double k : kOffsets) {
        auto xp = xc;
        xp[j] += k * step[j];
        perturbed.insert(perturbed.end(), xp.begin(), xp.end());
      }
    }
    const auto f = fd_cells.rates(perturbed);
    auto value = [&](int j, int k, int r) { return f[(4 * j + k) * B + r]; };
    const JacobianResult ref = evaluate_jacobian(cells.kernel(), {xc, {}, uniforms}, 0);
    const auto h = test::enthalpies(m, xc[0]);
    for (int j = 0; j < B; ++j) {
      double scale_w = 0, scale_q = std::abs(J[(c * B + B - 1) * B + j]);
      for (int r = 0; r < B - 1; ++r) {
        scale_w = std::max(scale_w, std::abs(J[(c * B + r) * B + j]));
        scale_q = std::max(scale_q, std::abs(h[r] * J[(c * B + r) * B + j]));
      }
      for (int r = 0; r < B; ++r) {
        CAPTURE(r);
        CAPTURE(j);
        const double jac = J[(c * B + r) * B + j];
        const double fd =
            (8 * (value(j, 0, r) - value(j, 1, r)) - (value(j, 2, r) - value(j, 3, r))) /
            (12 * step[j]);
        const double scale = r < B - 1 ? scale_w : scale_q;
        // The orders come from the tape columns (AssemblerOptions::element_tape_columns),
        // component-major from launches of its own: equal to rounding; column-major blocks
        // (each cell's transposed) from the cell-major ones' tiles.
        CHECK(std::abs(Jt[(r * B + j) * n + c] - jac) <= 1e-13 * scale);
        CHECK(std::abs(Jcol[(c * B + j) * B + r] - jac) <= 1e-13 * scale);
        CHECK(std::abs(jac - fd) <= 1e-6 * scale);
        CHECK(std::abs(jac - ref.jacobian[r * B + j]) <= 1e-12 * scale);
        worst_fd = std::max(worst_fd, std::abs(jac - fd) / scale);
        worst_ref = std::max(worst_ref, std::abs(jac - ref.jacobian[r * B + j]) / scale);
      }
    }
  }
  return {worst_fd, worst_ref};
}

}  // namespace

TEST_SUITE("kinetics") {
  TEST_CASE("ReactorCells (CPU): h2o2 and GRI-3.0 production rates against Cantera") {
    for (const std::string name : {"h2o2", "gri30"}) {
      CAPTURE(name);
      const auto ref = test::read_kinetics_reference(name);
      const Mechanism m = load_mechanism(ref.mechanism, ref.phase);
      const size_t ns = m.species.size();
      // Constant pressure: one cell, the pressure set per state.
      ReactorCells cells(m, 1, on_cpu(ReactorState::constant_pressure));
      CHECK(cells.backend() == assembly::Backend::Cpu);
      CHECK(cells.block_size() == static_cast<int>(ns + 1));
      for (const auto& s : ref.states) {
        CAPTURE(s.T);
        cells.set_pressure(s.p);
        check_against_cantera(cells.rates(test::ty_state(s)), s, ns);
      }
      if (name != "h2o2") continue;
      // Concentrations: all states in one call; constant volume: one cell, the density per state.
      ReactorCells tc(m, static_cast<int64_t>(ref.states.size()),
                      on_cpu(ReactorState::concentrations));
      const auto rates = tc.rates(tc_cells(m, ref));
      for (size_t c = 0; c < ref.states.size(); ++c) {
        const std::vector<double> cell(rates.begin() + c * (ns + 1),
                                       rates.begin() + (c + 1) * (ns + 1));
        check_against_cantera(cell, ref.states[c], ns);
      }
      // The same kernels over fewer cells: the first two states' rates, bit for bit.
      ReactorCells two = tc.resized(2);
      CHECK(two.n_cells() == 2);
      CHECK(two.rates_kernel().name() == tc.rates_kernel().name());
      CHECK(two.kernel().name() == tc.kernel().name());
      const std::vector<double> states = tc_cells(m, ref);
      const auto first =
          two.rates(std::vector<double>(states.begin(), states.begin() + 2 * (ns + 1)));
      CHECK(first == std::vector<double>(rates.begin(), rates.begin() + 2 * (ns + 1)));
      ReactorCells cv(m, 1, on_cpu(ReactorState::constant_volume));
      for (const auto& s : ref.states) {
        cv.set_density(test::density(m, s));
        check_against_cantera(cv.rates(test::ty_state(s)), s, ns);
      }
      CHECK_THROWS_WITH_AS(cv.set_pressure(1e5), doctest::Contains("takes no pressure"),
                           assembly::ProblemError);
      CHECK_THROWS_WITH_AS(cv.rates(std::vector<double>(ns)),
                           doctest::Contains("state has 10 values, expected 11"),
                           assembly::ProblemError);
    }
  }

  TEST_CASE("ReactorCells (CPU): h2o2 Jacobians against central differences, every state form") {
    const Mechanism m = load_mechanism("h2o2.yaml");
    const int B = static_cast<int>(m.species.size()) + 1;
    std::mt19937_64 rng(1601);
    for (ReactorState form : {ReactorState::constant_pressure, ReactorState::concentrations,
                              ReactorState::constant_volume}) {
      CAPTURE(reactor_state_name(form));
      const int64_t n = 3;
      ReactorCellsOptions o = on_cpu(form);
      o.pressure = 3.7e5;
      o.density = 0.42;
      std::vector<double> uniforms;
      if (form == ReactorState::constant_pressure) uniforms = {o.pressure};
      if (form == ReactorState::constant_volume) uniforms = {o.density};
      ReactorCells cells(m, n, o), fd_cells(m, 4 * B, o);
      std::vector<double> x;
      for (int64_t c = 0; c < n; ++c) {
        const auto s = test::random_state(m, form, o.pressure, rng);
        x.insert(x.end(), s.begin(), s.end());
      }
      const auto [fd, reference] = check_jacobian(m, cells, fd_cells, x, uniforms);
      MESSAGE("h2o2 " << reactor_state_name(form) << ": differences " << fd << ", reference "
                      << reference);
    }
  }

  TEST_CASE("ReactorCells (CPU): the rates' graph and the Jacobians', either form for both") {
    const Mechanism m = load_mechanism("h2o2.yaml");
    const size_t B = m.species.size() + 1;
    std::mt19937_64 rng(1604);
    const int64_t n = 4;
    std::vector<double> x;
    for (int64_t c = 0; c < n; ++c) {
      const auto s = test::random_state(m, ReactorState::constant_pressure, kOneAtm, rng);
      x.insert(x.end(), s.begin(), s.end());
    }
    // Largest difference over a cell's block relative to the block's largest magnitude.
    const auto worst = [&](const std::vector<double>& a, const std::vector<double>& b,
                           size_t size) {
      REQUIRE(a.size() == b.size());
      double w = 0;
      for (size_t c = 0; c < a.size() / size; ++c) {
        double scale = 0, diff = 0;
        for (size_t i = c * size; i < (c + 1) * size; ++i) {
          scale = std::max(scale, std::abs(b[i]));
          diff = std::max(diff, std::abs(a[i] - b[i]));
        }
        w = std::max(w, diff / scale);
      }
      return w;
    };
    ReactorCellsOptions o = on_cpu(ReactorState::constant_pressure);
    // By default two graphs: the rates' in the values' form, the Jacobians' in the derivatives'.
    ReactorCells split(m, n, o);
    CHECK(split.kernel().name() == "kinetics_ohmech_constant_pressure");
    CHECK(split.rates_kernel().name() == "kinetics_ohmech_constant_pressure_values");
    const std::vector<double> rates = split.rates(x), jacobian = split.jacobian(x);
    bool values = false, derivatives = false;
    for (const auto& k : split.kernels()) {
      const bool is_values = k.symbol.find("_values") != std::string::npos;
      values = values || is_values;
      derivatives = derivatives || !is_values;
    }
    CHECK(values);
    CHECK(derivatives);
    // One graph for both, in either form: the same rates to round-off, and with the
    // derivatives' form the same Jacobian bit for bit (the same kernel).
    o.rates_form = RateLawForm::derivatives;
    ReactorCells derivatives_form(m, n, o);
    CHECK(&derivatives_form.rates_kernel() == &derivatives_form.kernel());
    const std::vector<double> derivatives_rates = derivatives_form.rates(x);
    CHECK(derivatives_rates != rates);  // the graphs differ; not a kernel run twice
    CHECK(worst(rates, derivatives_rates, B) < 1e-13);
    CHECK(derivatives_form.jacobian(x) == jacobian);
    o.rate_law.form = o.rates_form = RateLawForm::values;
    ReactorCells values_form(m, n, o);
    CHECK(values_form.kernel().name() == split.rates_kernel().name());
    CHECK(values_form.rates(x) == rates);
    CHECK(worst(values_form.jacobian(x), jacobian, B * B) < 1e-12);
    // Two kernels given: their slots must agree.
    CHECK_THROWS_WITH_AS(ReactorCells(production_rates_kernel(m),
                                      production_rates_kernel(m, {ReactorState::concentrations}), n,
                                      on_cpu(ReactorState::constant_pressure)),
                         doctest::Contains("uniform slot 'p' is in the kernel"),
                         assembly::ProblemError);
  }

  TEST_CASE("ReactorCells (CPU): the Jacobian in row groups is the Jacobian") {
    const Mechanism m = load_mechanism("h2o2.yaml");
    const size_t B = m.species.size() + 1;
    std::mt19937_64 rng(1603);
    ReactorCellsOptions o = on_cpu(ReactorState::constant_pressure);
    o.assembler.element_tape_columns = false;  // the row groups, not the tape columns
    const int64_t n = 5;
    std::vector<double> x;
    for (int64_t c = 0; c < n; ++c) {
      const auto s = test::random_state(m, ReactorState::constant_pressure, o.pressure, rng);
      x.insert(x.end(), s.begin(), s.end());
    }
    const std::vector<double> whole = ReactorCells(m, n, o).jacobian(x);
    for (int rows : {1, 4}) {
      CAPTURE(rows);
      o.assembler.element_rows = rows;
      ReactorCells grouped(m, n, o);
      const std::vector<double> j = grouped.jacobian(x);
      REQUIRE(j.size() == whole.size());
      // The same expressions per entry, scheduled differently: equal to round-off.
      for (size_t c = 0; c < size_t(n); ++c) {
        double scale = 0, diff = 0;
        for (size_t i = c * B * B; i < (c + 1) * B * B; ++i) {
          scale = std::max(scale, std::abs(whole[i]));
          diff = std::max(diff, std::abs(j[i] - whole[i]));
        }
        CHECK(diff <= 1e-14 * scale);
      }
    }
  }

  TEST_CASE("ReactorCells (CPU): GRI-3.0 dwdot/dC against central differences") {
    const Mechanism m = load_mechanism("gri30.yaml");
    const int B = static_cast<int>(m.species.size()) + 1;
    std::mt19937_64 rng(1602);
    const ReactorCellsOptions o = on_cpu(ReactorState::concentrations);
    const int64_t n = 2;
    ReactorCells cells(m, n, o), fd_cells(m, 4 * B, o);
    std::vector<double> x;
    for (int64_t c = 0; c < n; ++c) {
      const auto s = test::random_state(m, ReactorState::concentrations, 2.0e5 * (c + 1), rng);
      x.insert(x.end(), s.begin(), s.end());
    }
    const auto [fd, reference] = check_jacobian(m, cells, fd_cells, x, {});
    MESSAGE("gri30 concentrations: differences " << fd << ", reference " << reference);
  }
}
