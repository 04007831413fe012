#include "examples/kinetics/cell_state.h"

#include "examples/kinetics/units.h"

namespace dualjit::kinetics {

std::string_view reactor_state_name(ReactorState state) {
  switch (state) {
    case ReactorState::constant_pressure:
      return "constant-pressure";
    case ReactorState::concentrations:
      return "concentrations";
    case ReactorState::constant_volume:
      return "constant-volume";
  }
  return "?";
}

CellState declare_cell_state(KernelBuilder& kb, const Mechanism& m, ReactorState state) {
  const size_t ns = m.species.size();
  if (ns == 0) throw MechanismError(m.file + ": phase '" + m.phase + "' has no species");
  const auto x = kb.input("state", static_cast<int>(ns + 1));
  CellState s;
  s.T = x[0];
  const Expr RT = kGasConstant * s.T;
  auto sum = [](const std::vector<Expr>& v) {
    Expr total = v[0];
    for (size_t k = 1; k < v.size(); ++k) total = total + v[k];
    return total;
  };
  switch (state) {
    case ReactorState::constant_pressure: {
      const Expr p = kb.uniform("p");
      std::vector<Expr> moles(ns);  // Y_k / W_k
      for (size_t k = 0; k < ns; ++k) moles[k] = x[k + 1] * (1.0 / m.species[k].molecular_weight);
      s.C_tot = p / RT;
      // rho / W_k = C_tot W / W_k, with 1/W = sum Y_k / W_k. A function of every Y_k that
      // enters every C_k: cut, so that C_k carries the tangents of Y_k and the cut alone, and
      // the (T, Y) Jacobian costs about what the (T, C) one does (dsl/expr.h cut()).
      const Expr scale = cut(s.C_tot / sum(moles));
      for (size_t k = 0; k < ns; ++k) s.C.push_back(scale * moles[k]);
      s.log_p = log(p);
      return s;
    }
    case ReactorState::concentrations:
      s.C.assign(x.begin() + 1, x.end());
      break;
    case ReactorState::constant_volume: {
      const Expr rho = kb.uniform("rho");
      for (size_t k = 0; k < ns; ++k)
        s.C.push_back(rho * x[k + 1] * (1.0 / m.species[k].molecular_weight));
      break;
    }
  }
  // The total of every C_k, in [M] and the pressure of falloff and PLOG reactions: cut, as
  // above.
  s.C_tot = cut(sum(s.C));
  s.log_p = log(s.C_tot * RT);
  return s;
}

}  // namespace dualjit::kinetics
