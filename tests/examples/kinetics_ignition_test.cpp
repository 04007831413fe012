// Adiabatic reactors integrated by solvers::integrate_stiff (examples/kinetics/reactor_odes.h):
// the reactor equations against the rate laws and their Jacobian against central differences
// (reference evaluator), then ignition against Cantera's reactor networks
// (tests/data/kinetics/ignition.ref.txt, make_ignition_references.py): the ignition delay (time
// of the largest dT/dt) within 0.5 %, the temperature at twice it and at the end within 1 K, the
// end state against Cantera's equilibrium within 1 K and 1e-4 in mole fractions, mass fractions
// normalised and non-negative; CPU in CI (h2o2 at constant pressure and volume, GRI-3.0 twice),
// all five cases on the GPU with the CPU and GPU runs of a sweep compared.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "dsl/reference_evaluator.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "examples/kinetics/reactor_equations.h"
#include "examples/kinetics/reactor_odes.h"
#include "kinetics_reference.h"
#include "solvers/stiff_integrator.h"
#include "support/gpu.h"

namespace {

using namespace dualjit;
using namespace dualjit::kinetics;

struct IgnitionCase {
  std::string name, mechanism, phase, reactor;
  double T0 = 0, p0 = 0, tau = 0, T_2tau = 0, t_end = 0, T_end = 0, T_eq = 0;
  std::vector<std::string> species;
  std::vector<double> Y0, Y_end, X_eq;
};

std::vector<IgnitionCase> read_ignition_references() {
  const std::string path = test::kinetics_reference_dir() + "/ignition.ref.txt";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in, "cannot read " << path);
  std::vector<IgnitionCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string key;
    s >> key;
    if (key == "case") {
      s >> cases.emplace_back().name;
      continue;
    }
    REQUIRE_MESSAGE(!cases.empty(), path << ": " << key << " before the first case");
    IgnitionCase& c = cases.back();
    std::vector<double> v;
    if (key == "mechanism") {
      s >> c.mechanism;
    } else if (key == "phase") {
      s >> c.phase;
    } else if (key == "reactor") {
      s >> c.reactor;
    } else if (key == "species") {
      for (std::string w; s >> w;) c.species.push_back(w);
    } else {
      for (std::string w; s >> w;) v.push_back(std::stod(w));
      if (key == "Y0") c.Y0 = v;
      if (key == "Y_end") c.Y_end = v;
      if (key == "X_eq") c.X_eq = v;
      if (v.size() == 1) {
        if (key == "T0") c.T0 = v[0];
        if (key == "p0") c.p0 = v[0];
        if (key == "tau") c.tau = v[0];
        if (key == "T_2tau") c.T_2tau = v[0];
        if (key == "t_end") c.t_end = v[0];
        if (key == "T_end") c.T_end = v[0];
        if (key == "T_eq") c.T_eq = v[0];
      }
    }
  }
  for (const IgnitionCase& c : cases) {
    CAPTURE(c.name);
    const size_t ns = c.species.size();
    REQUIRE((c.Y0.size() == ns && c.Y_end.size() == ns && c.X_eq.size() == ns));
    REQUIRE((c.tau > 0 && c.t_end > 2 * c.tau && c.T0 > 0 && c.p0 > 0));
  }
  return cases;
}

const IgnitionCase& find_case(const std::vector<IgnitionCase>& cases, const std::string& name) {
  for (const IgnitionCase& c : cases)
    if (c.name == name) return c;
  FAIL("no case " << name << " in ignition.ref.txt");
  return cases.front();
}

std::vector<double> mole_fractions(const Mechanism& m, const double* Y) {
  std::vector<double> X(m.species.size());
  double sum = 0;
  for (size_t k = 0; k < X.size(); ++k) sum += X[k] = Y[k] / m.species[k].molecular_weight;
  for (double& x : X) x /= sum;
  return X;
}

double mean_weight(const Mechanism& m, const std::vector<double>& Y) {
  double sum = 0;
  for (size_t k = 0; k < Y.size(); ++k) sum += Y[k] / m.species[k].molecular_weight;
  return 1.0 / sum;
}

// cp_k / R from the loaded NASA7 data.
double cp_over_R(const Species& s, double T) {
  const auto& a = T <= s.thermo.t_mid ? s.thermo.low : s.thermo.high;
  return a[0] + T * (a[1] + T * (a[2] + T * (a[3] + T * a[4])));
}

ReactorOdesOptions reactor_options(const Mechanism& m, const IgnitionCase& c,
                                   assembly::Backend backend) {
  ReactorOdesOptions o;
  o.assembler.backend = backend;
  o.pressure = c.p0;
  if (c.reactor == "constant-volume") {
    o.state = ReactorState::constant_volume;
    o.density = c.p0 * mean_weight(m, c.Y0) / (kGasConstant * c.T0);
  }
  return o;
}

// Two copies of the case: one to 2 tau (Cantera's), one to its end time, both tracking dT/dt.
void check_ignition(const IgnitionCase& c, assembly::Backend backend,
                    const solvers::StiffOptions& tolerances = {}) {
  CAPTURE(c.name);
  const Mechanism m = load_mechanism(c.mechanism + (c.phase == "-" ? "" : ":" + c.phase));
  REQUIRE(m.species.size() == c.species.size());
  for (size_t k = 0; k < c.species.size(); ++k) REQUIRE(m.species[k].name == c.species[k]);
  const int n = static_cast<int>(m.species.size()) + 1;
  ReactorOdes odes(m, 2, reactor_options(m, c, backend));
  std::vector<double> y;
  for (int copy = 0; copy < 2; ++copy) {
    y.push_back(c.T0);
    y.insert(y.end(), c.Y0.begin(), c.Y0.end());
  }
  odes.check_states(y);
  solvers::StiffOptions o = tolerances;
  o.peak_component = 0;
  const std::vector<double> t_end{2 * c.tau, c.t_end};
  const solvers::StiffReport r = solvers::integrate_stiff(odes, y, t_end, o);
  REQUIRE_MESSAGE(r.failed() == 0, r.failures());
  MESSAGE(c.name << ": tau " << r.peak_time[1] << " s (Cantera " << c.tau << "), T(2 tau) " << y[0]
                 << " K (" << c.T_2tau << "), T_end " << y[n] << " K (" << c.T_end << "), "
                 << r.steps[1] << " steps, " << r.rejected[1] << " rejected, " << r.seconds
                 << " s");
  CHECK(std::abs(r.peak_time[1] / c.tau - 1) < 5e-3);
  CHECK(std::abs(r.peak_time[0] / c.tau - 1) < 5e-3);
  CHECK(std::abs(y[0] - c.T_2tau) < 1.0);
  CHECK(std::abs(y[n] - c.T_end) < 1.0);
  // At equilibrium where Cantera's reactor got there, else at Cantera's end state (a species
  // that nothing consumes keeps nDodecane's reactor 4 K short of it).
  const bool at_equilibrium = std::abs(c.T_end - c.T_eq) < 0.05;
  const std::vector<double> X = mole_fractions(m, &y[n + 1]);
  const std::vector<double> X_ref = at_equilibrium ? c.X_eq : mole_fractions(m, c.Y_end.data());
  CHECK(std::abs(y[n] - (at_equilibrium ? c.T_eq : c.T_end)) < 1.0);
  double worst = 0, sum = 0, lowest = 0;
  for (size_t k = 0; k < X.size(); ++k) {
    worst = std::max(worst, std::abs(X[k] - X_ref[k]));
    sum += y[n + 1 + k];
    lowest = std::min(lowest, y[n + 1 + k]);
  }
  CHECK(worst < 1e-4);
  CHECK(std::abs(sum - 1) < 1e-9);
  CHECK(lowest > -1e-12);
}

}  // namespace

TEST_SUITE("kinetics") {
  TEST_CASE(
      "reactor equations: dY/dt = wdot W / rho, dT/dt = q / (rho c), Jacobian by differences") {
    std::mt19937_64 rng(5);
    for (const char* spec : {"h2o2.yaml", "gri30.yaml"}) {
      const Mechanism m = load_mechanism(spec);
      const size_t ns = m.species.size();
      for (ReactorState state : {ReactorState::constant_pressure, ReactorState::constant_volume}) {
        CAPTURE(spec);
        CAPTURE(reactor_state_name(state));
        const Kernel rhs = reactor_rhs_kernel(m, state);
        const Kernel rhs_values = reactor_rhs_kernel(m, state, RateLawForm::values);
        CHECK(rhs_values.name() == rhs.name() + "_values");
        RateLawOptions ro;
        ro.state = state;
        const Kernel rates = production_rates_kernel(m, ro);
        for (int trial = 0; trial < 3; ++trial) {
          const std::vector<double> x =
              test::random_state(m, ReactorState::constant_pressure, 3 * kOneAtm, rng);
          const std::vector<double> Y(x.begin() + 1, x.end());
          const double T = x[0], W = mean_weight(m, Y);
          const double rho = state == ReactorState::constant_pressure
                                 ? 3 * kOneAtm * W / (kGasConstant * T)
                                 : 0.37;
          const std::vector<double> u{state == ReactorState::constant_pressure ? 3 * kOneAtm : rho};
          const std::vector<double> f = evaluate_values(rhs, {x, {}, u});
          const std::vector<double> w = evaluate_values(rates, {x, {}, u});
          // The values' form: the same function to round-off.
          const std::vector<double> fp = evaluate_values(rhs_values, {x, {}, u});
          for (size_t i = 0; i <= ns; ++i)
            CHECK(fp[i] == doctest::Approx(f[i]).epsilon(1e-12).scale(1e-300));
          double cp = 0, wsum = 0, mass = 0;
          for (size_t k = 0; k < ns; ++k) {
            cp += Y[k] * cp_over_R(m.species[k], T) * kGasConstant / m.species[k].molecular_weight;
            wsum += w[k];
            CHECK(f[k + 1] == doctest::Approx(w[k] * m.species[k].molecular_weight / rho)
                                  .epsilon(1e-12)
                                  .scale(1e-300));
            mass += f[k + 1];
          }
          const double dTdt =
              state == ReactorState::constant_pressure
                  ? w[ns] / (rho * cp)
                  : (w[ns] + kGasConstant * T * wsum) / (rho * (cp - kGasConstant / W));
          CHECK(f[0] == doctest::Approx(dTdt).epsilon(1e-11));
          double scale = 0;
          for (size_t k = 0; k < ns; ++k) scale = std::max(scale, std::abs(f[k + 1]));
          CHECK(std::abs(mass) < 1e-13 * scale);  // sum_k dY_k/dt = 0
          // The Jacobian against fourth-order central differences, column by column.
          const JacobianResult jr = evaluate_jacobian(rhs, {x, {}, u}, 0);
          const size_t n = ns + 1;
          for (size_t col = 0; col < n; ++col) {
            const double step = 1e-4 * (col == 0 ? T : std::max(x[col], 1e-6));
            auto at = [&](double d) {
              std::vector<double> xp = x;
              xp[col] += d;
              return evaluate_values(rhs, {xp, {}, u});
            };
            const auto p1 = at(step), m1 = at(-step), p2 = at(2 * step), m2 = at(-2 * step);
            double diff = 0, size = 0;
            for (size_t row = 0; row < n; ++row) {
              const double fd = (8 * (p1[row] - m1[row]) - (p2[row] - m2[row])) / (12 * step);
              diff = std::max(diff, std::abs(fd - jr.jacobian[row * n + col]) * step);
              size = std::max(size, std::abs(f[row]) + std::abs(fd) * step);
            }
            CAPTURE(col);
            CHECK(diff <= 1e-7 * size);
          }
        }
      }
    }
  }

  TEST_CASE("ReactorOdes refuses unphysical states and reactors, naming the cell") {
    const Mechanism m = load_mechanism("h2o2.yaml");
    ReactorOdesOptions o;
    o.assembler.backend = assembly::Backend::Cpu;
    ReactorOdes odes(m, 2, o);
    // The right-hand side from the rate laws' graph for values, the Jacobians from the one for
    // derivatives; one graph when the two forms are the same.
    CHECK(odes.cells().rates_kernel().name() == odes.cells().kernel().name() + "_values");
    ReactorOdesOptions one = o;
    one.rhs_form = RateLawForm::derivatives;
    ReactorOdes single(m, 1, one);
    CHECK(&single.cells().rates_kernel() == &single.cells().kernel());
    std::vector<double> y(2 * 11, 0.1);
    y[0] = y[11] = 1000;
    CHECK_NOTHROW(odes.check_states(y));
    y[11] = -5;
    CHECK_THROWS_WITH_AS(odes.check_states(y), doctest::Contains("cell 1: temperature"),
                         MechanismError);
    y[11] = 1000;
    y[3] = -0.1;
    CHECK_THROWS_WITH_AS(odes.check_states(y), doctest::Contains("cell 0: mass fraction of O"),
                         MechanismError);
    y[3] = 0.2;
    CHECK_THROWS_WITH_AS(odes.check_states(y), doctest::Contains("cell 0: mass fractions sum"),
                         MechanismError);
    CHECK_THROWS_AS(odes.check_states(std::vector<double>(12, 0.1)), MechanismError);
    o.pressure = -1;
    CHECK_THROWS_WITH_AS(ReactorOdes(m, 1, o), doctest::Contains("pressure"), MechanismError);
    o.pressure = kOneAtm;
    o.state = ReactorState::concentrations;
    CHECK_THROWS_AS(ReactorOdes(m, 1, o), MechanismError);
  }

  TEST_CASE("ignition against Cantera: h2o2 at constant pressure and volume, CPU") {
    const auto cases = read_ignition_references();
    check_ignition(find_case(cases, "h2o2_1000K_1atm"), assembly::Backend::Cpu);
    check_ignition(find_case(cases, "h2o2_1000K_1atm_cv"), assembly::Backend::Cpu);
  }

  TEST_CASE("ignition against Cantera: GRI-3.0 at 1200 K, 1 atm and 1400 K, 10 atm, CPU") {
    const auto cases = read_ignition_references();
    check_ignition(find_case(cases, "gri30_1200K_1atm"), assembly::Backend::Cpu);
    check_ignition(find_case(cases, "gri30_1400K_10atm"), assembly::Backend::Cpu);
  }
}

// A small batch on a GPU pays each kernel's latency on one thread per cell every round, so the
// GPU cases run at rtol 1e-7, atol 1e-12: a tenth of the steps of Cantera's defaults (1e-9,
// 1e-15, whose atol on trace species sets the step), and still within 1e-5 of Cantera's delays.
namespace {
solvers::StiffOptions gpu_tolerances() {
  solvers::StiffOptions o;
  o.rtol = 1e-7;
  o.atol = 1e-12;
  return o;
}
}  // namespace

TEST_SUITE("gpu") {
  TEST_CASE("ignition against Cantera on the GPU: all five cases" * dualjit::test::needs_gpu()) {
    for (const IgnitionCase& c : read_ignition_references())
      check_ignition(c, assembly::Backend::Cuda, gpu_tolerances());
  }

  TEST_CASE(
      "an h2o2 ignition sweep with staggered end times: the GPU equals the CPU, both methods" *
      dualjit::test::needs_gpu()) {
    // Cells finish one after another, so the running ones are packed and the kernels move to
    // smaller batches as they go (reactor_odes.h).
    const auto cases = read_ignition_references();
    const IgnitionCase& c = find_case(cases, "h2o2_1000K_1atm");
    const Mechanism m = load_mechanism("h2o2.yaml");
    const int n = static_cast<int>(m.species.size()) + 1, cells = 37;
    std::vector<double> y0, t_end;
    for (int i = 0; i < cells; ++i) {
      y0.push_back(1000.0 + 500.0 * i / (cells - 1));
      y0.insert(y0.end(), c.Y0.begin(), c.Y0.end());
      t_end.push_back(1e-3 * (1 + i % 7));
    }
    for (solvers::StiffMethod method : {solvers::StiffMethod::bdf, solvers::StiffMethod::rodas4}) {
      const std::string name = method == solvers::StiffMethod::bdf ? "bdf" : "rodas4";
      CAPTURE(name);
      solvers::StiffOptions o = gpu_tolerances();
      o.method = method;
      o.peak_component = 0;
      std::vector<std::vector<double>> tau, y;
      for (auto backend : {assembly::Backend::Cpu, assembly::Backend::Cuda}) {
        ReactorOdes odes(m, cells, reactor_options(m, c, backend));
        y.push_back(y0);
        const solvers::StiffReport r = solvers::integrate_stiff(odes, y.back(), t_end, o);
        REQUIRE_MESSAGE(r.failed() == 0, r.failures());
        CHECK(r.t == t_end);
        tau.push_back(r.peak_time);
        MESSAGE(name << (backend == assembly::Backend::Cpu ? " CPU" : " GPU") << ": " << r.rounds
                     << " rounds, " << r.system_steps << " steps, " << r.system_jacobians
                     << " Jacobians, " << r.system_factorizations << " LUs, " << r.seconds
                     << " s (Jacobian " << r.jacobian_seconds << ", LU " << r.factor_seconds
                     << ", stages " << r.stage_seconds << ", control " << r.control_seconds << ")");
        if (method == solvers::StiffMethod::bdf) {  // the BDF splits its stages
          CHECK(r.rhs_seconds > 0.0);
          CHECK(r.newton_seconds > 0.0);
          CHECK(r.rhs_seconds + r.newton_seconds <= r.stage_seconds);
          CHECK(r.newton_sweeps > 0);
          CHECK(r.newton_rows >= r.newton_sweeps);
          CHECK(r.newton_rows <= r.newton_sweeps * cells);
        }
      }
      for (int i = 0; i < cells; ++i) {
        CAPTURE(i);
        CHECK(tau[1][i] == doctest::Approx(tau[0][i]).epsilon(1e-6));
        for (int k = 0; k < n; ++k)
          CHECK(y[1][i * n + k] == doctest::Approx(y[0][i * n + k]).epsilon(1e-6).scale(1e-9));
      }
      // Delays fall with the initial temperature.
      for (int i = 1; i < cells; ++i) CHECK(tau[0][i] < tau[0][i - 1]);
    }
  }
}
