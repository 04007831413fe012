// dualjit's Jacobians of the net production rates against Cantera 3.2's derivatives
// (net_production_rates_ddT, _ddP, _ddC, _ddCi with third bodies and falloff not skipped) at
// the reference states that carry them (kinetics_reference.h), in every state form: loose,
// since Cantera takes the falloff terms by finite differences. dualjit's side is the reference
// evaluator's exact Jacobian of the kernel (no compile: GRI-3.0's (T, Y) Jacobian takes the host
// compiler about 50 s); kinetics_reactor_cells_test.cpp checks that the compiled Jacobians equal
// it. Also the Jacobian's own invariants: d/dx of sum_k W_k wdot_k and of every element's
// sum_k a_jk wdot_k vanish.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "dsl/reference_evaluator.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "examples/kinetics/units.h"
#include "kinetics_reference.h"

namespace {

using namespace dualjit;
using namespace dualjit::kinetics;
using test::KineticsReference;
using test::KineticsState;

const char* const kMechanisms[] = {"h2o2", "gri30", "ammonia-CO-H2-Alzueta-2023", "nDodecane_Reitz",
                                   "rate_types"};

// Elementwise error relative to the column's largest dualjit entry. Cantera takes some terms
// (falloff, pressure dependence) by forward differences with a relative step of 1e-8, so the
// bound is loose. rate_types.yaml at 300 K and 0.1 atm: Cantera's dwdot/dT at constant C is
// 1.3e-6 off against central differences of Cantera's own rates (Richardson, steps of 1e-3 T),
// which dualjit matches to 4e-11 (measured, Cantera 3.2.0).
double tolerance(const std::string& mechanism) {
  return mechanism == "rate_types" ? 3e-6 : 1e-6;
}

// A dense matrix, row-major.
struct Matrix {
  size_t rows = 0, cols = 0;
  std::vector<double> a;
  Matrix(size_t r, size_t c) : rows(r), cols(c), a(r * c, 0.0) {}
  double& operator()(size_t i, size_t j) { return a[i * cols + j]; }
  double operator()(size_t i, size_t j) const { return a[i * cols + j]; }
};

Matrix operator*(const Matrix& x, const Matrix& y) {
  Matrix z(x.rows, y.cols);
  for (size_t i = 0; i < x.rows; ++i)
    for (size_t k = 0; k < x.cols; ++k)
      if (x(i, k) != 0.0)
        for (size_t j = 0; j < y.cols; ++j) z(i, j) += x(i, k) * y(k, j);
  return z;
}

// Cantera's dwdot/d(T, C), ns x (ns + 1). In dualjit's (T, C) form the pressure R T sum C moves
// with T and every C_k, which ddT and ddCi hold fixed; ddP (nonzero for PLOG and Chebyshev)
// adds it: the T column is ddT + ddP p/T, the C_i column ddCi[:, i] + ddP R T.
Matrix cantera_tc_jacobian(const KineticsState& s, size_t ns) {
  Matrix J(ns, ns + 1);
  for (size_t k = 0; k < ns; ++k) {
    J(k, 0) = s.ddT[k] + s.ddP[k] * s.p / s.T;
    for (size_t i = 0; i < ns; ++i)
      J(k, 1 + i) = s.ddCi[k * ns + i] + s.ddP[k] * kGasConstant * s.T;
  }
  return J;
}

// d(T, C)/d(state) of a state form, (ns + 1) x (ns + 1), with C_k = rho Y_k / W_k:
//   concentrations     the identity
//   constant_volume    dC_k/dY_j = delta_kj rho / W_j (T does not move C)
//   constant_pressure  rho = p W / (R T): dC_k/dT = -C_k / T, dC_k/dY_j = (rho / W_j)(delta_kj -
//                      X_k), since d rho/dY_j = -rho W / W_j
Matrix state_map(const Mechanism& m, const KineticsState& s, ReactorState form) {
  const size_t ns = m.species.size();
  Matrix M(ns + 1, ns + 1);
  M(0, 0) = 1;
  if (form == ReactorState::concentrations) {
    for (size_t k = 0; k < ns; ++k) M(1 + k, 1 + k) = 1;
    return M;
  }
  const double rho = test::density(m, s);
  const auto C = test::tc_state(m, s);
  double C_tot = 0;
  for (size_t k = 0; k < ns; ++k) C_tot += C[1 + k];
  for (size_t j = 0; j < ns; ++j) {
    const double r = rho / m.species[j].molecular_weight;
    M(1 + j, 1 + j) = r;
    if (form == ReactorState::constant_pressure)
      for (size_t k = 0; k < ns; ++k) M(1 + k, 1 + j) -= r * C[1 + k] / C_tot;
  }
  if (form == ReactorState::constant_pressure)
    for (size_t k = 0; k < ns; ++k) M(1 + k, 0) = -C[1 + k] / s.T;
  return M;
}

std::vector<double> state_of(const Mechanism& m, const KineticsState& s, ReactorState form) {
  return form == ReactorState::concentrations ? test::tc_state(m, s) : test::ty_state(s);
}

std::vector<double> uniforms_of(const Mechanism& m, const KineticsState& s, ReactorState form) {
  if (form == ReactorState::constant_pressure) return {s.p};
  if (form == ReactorState::constant_volume) return {test::density(m, s)};
  return {};
}

// dwdot/d(state) from the reference evaluator, ns x (ns + 1) (the heat release row dropped).
Matrix dualjit_jacobian(const Kernel& k, const Mechanism& m, const KineticsState& s,
                        ReactorState form) {
  const size_t ns = m.species.size();
  const auto r = evaluate_jacobian(k, {state_of(m, s, form), {}, uniforms_of(m, s, form)}, 0);
  REQUIRE(r.jacobian.size() == (ns + 1) * (ns + 1));
  Matrix J(ns, ns + 1);
  std::copy(r.jacobian.begin(), r.jacobian.begin() + ns * (ns + 1), J.a.begin());
  return J;
}

std::string column_name(const Mechanism& m, ReactorState form, size_t j) {
  if (j == 0) return "T";
  return (form == ReactorState::concentrations ? "C_" : "Y_") + m.species[j - 1].name;
}

// The largest error of column j of `a` against `b`, relative to the column's scale
// max_k |a_kj|, and the row where it is.
std::pair<double, size_t> column_error(const Matrix& a, const Matrix& b, size_t j) {
  double scale = 0;
  for (size_t k = 0; k < a.rows; ++k) scale = std::max(scale, std::abs(a(k, j)));
  double worst = 0;
  size_t row = 0;
  for (size_t k = 0; k < a.rows; ++k) {
    const double e = std::abs(a(k, j) - b(k, j)) / (scale > 0 ? scale : 1.0);
    if (e > worst) worst = e, row = k;
  }
  return {worst, row};
}

const ReactorState kForms[] = {ReactorState::concentrations, ReactorState::constant_pressure,
                               ReactorState::constant_volume};

}  // namespace

TEST_SUITE("kinetics") {
  // One evaluation of each Jacobian serves both checks: the reference evaluator's Jacobian of
  // the larger mechanisms is the test's cost.
  TEST_CASE(
      "Jacobians against Cantera's net_production_rates_ddCi, _ddT, _ddP, and conserving mass and "
      "elements, every state form") {
    for (const std::string name : kMechanisms) {
      CAPTURE(name);
      const KineticsReference ref = test::read_kinetics_reference(name);
      CAPTURE(ref.path);
      const Mechanism m = load_mechanism(ref.mechanism, ref.phase);
      const size_t ns = m.species.size();
      REQUIRE(ns == ref.species.size());
      const auto rows = test::conservation_rows(m);
      size_t n_states = 0;
      std::map<std::string, double> worst;
      double worst_conservation = 0;
      const double tol = tolerance(name);
      for (ReactorState form : kForms) {
        const std::string form_name(reactor_state_name(form));
        CAPTURE(form_name);
        const Kernel k = production_rates_kernel(m, {form});
        for (size_t i = 0; i < ref.states.size(); ++i) {
          const KineticsState& s = ref.states[i];
          if (s.ddCi.empty()) continue;
          if (form == kForms[0]) ++n_states;
          CAPTURE(i);
          CAPTURE(s.T);
          CAPTURE(s.p);
          const Matrix J = dualjit_jacobian(k, m, s, form);
          // d/dx of sum_k W_k wdot_k and of every element's sum_k a_jk wdot_k vanish.
          for (size_t e = 0; e < rows.size(); ++e) {
            const std::string element = e < m.elements.size() ? m.elements[e].name : "mass";
            CAPTURE(element);
            for (size_t j = 0; j <= ns; ++j) {
              std::vector<double> dwdot(ns);
              for (size_t r = 0; r < ns; ++r) dwdot[r] = J(r, j);
              const double err = test::conservation_error(rows[e], dwdot);
              const std::string column = column_name(m, form, j);
              CAPTURE(column);
              CHECK(err <= 1e-12);
              worst_conservation = std::max(worst_conservation, err);
            }
          }
          const Matrix Jc = cantera_tc_jacobian(s, ns) * state_map(m, s, form);
          for (size_t j = 0; j <= ns; ++j) {
            const auto [e, row] = column_error(J, Jc, j);
            const std::string column = column_name(m, form, j);
            const std::string species = ref.species[row];
            CAPTURE(column);
            CAPTURE(species);
            CHECK(e <= tol);
            worst[form_name] = std::max(worst[form_name], e);
          }
          if (form != ReactorState::constant_pressure) continue;
          // The constant-pressure T column as the issue writes it, ddT + ddC (-C_tot / T): the
          // ddP terms above cancel there, since p does not move.
          const double C_tot = s.p / (kGasConstant * s.T);
          Matrix Jt(ns, 1), Jct(ns, 1);
          for (size_t r = 0; r < ns; ++r) {
            Jt(r, 0) = J(r, 0);
            Jct(r, 0) = s.ddT[r] - s.ddC[r] * C_tot / s.T;
          }
          const auto [e, row] = column_error(Jt, Jct, 0);
          const std::string species = ref.species[row];
          CAPTURE(species);
          CHECK(e <= tol);
          worst["dwdot/dT at p"] = std::max(worst["dwdot/dT at p"], e);
        }
      }
      CHECK(n_states > 0);
      std::ostringstream out;
      out.precision(2);
      out << name << " (" << n_states << " states), largest error relative to the column:";
      for (const auto& [key, e] : worst) out << " " << key << " " << e;
      out << "; largest |d/dx sum_k a_k wdot_k| / max_k |a_k dwdot_k/dx| " << worst_conservation;
      MESSAGE(out.str());
    }
  }
}
