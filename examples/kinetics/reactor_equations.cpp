#include "examples/kinetics/reactor_equations.h"

#include <cctype>

#include "examples/kinetics/rate_laws.h"
#include "examples/kinetics/thermo.h"
#include "examples/kinetics/units.h"

namespace dualjit::kinetics {

Kernel reactor_rhs_kernel(const Mechanism& m, ReactorState state, RateLawForm form) {
  if (state == ReactorState::concentrations)
    throw MechanismError(m.file +
                         ": a reactor's state is constant-pressure or constant-volume, "
                         "not concentrations");
  std::string name = "reactor_" + m.phase + "_" + std::string(reactor_state_name(state));
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  name += rate_law_form_suffix(form);
  return Kernel(name, [&](KernelBuilder& kb) {
    const CellState s = declare_cell_state(kb, m, state);
    const RateLaws laws = rate_laws(m, s, form);
    const size_t ns = m.species.size();
    // rho = sum_k C_k W_k; cp = sum_k C_k cp_k / rho (molar cp_k); moles_per_mass = 1 / W.
    const TemperatureTerms t(s.T);
    Expr rho, C_cp, C_sum;
    for (size_t k = 0; k < ns; ++k) {
      const Expr mass = s.C[k] * m.species[k].molecular_weight;
      const Expr heat = s.C[k] * cp_over_R(m.species[k].thermo, t);
      rho = k ? rho + mass : mass;
      C_cp = k ? C_cp + heat : heat;
      C_sum = k ? C_sum + s.C[k] : s.C[k];
    }
    const Expr inv_rho = 1.0 / rho;
    std::vector<Expr> rhs(ns + 1);
    if (state == ReactorState::constant_pressure) {
      rhs[0] = laws.heat_release / (kGasConstant * C_cp);
    } else {
      Expr wdot_sum = laws.wdot[0];
      for (size_t k = 1; k < ns; ++k) wdot_sum = wdot_sum + laws.wdot[k];
      const Expr RT = kGasConstant * s.T;
      rhs[0] = (laws.heat_release + RT * wdot_sum) / (kGasConstant * (C_cp - C_sum));
    }
    for (size_t k = 0; k < ns; ++k)
      rhs[k + 1] = laws.wdot[k] * (m.species[k].molecular_weight * inv_rho);
    kb.output("rhs", rhs);
  });
}

}  // namespace dualjit::kinetics
