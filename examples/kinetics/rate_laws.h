// The rate laws of a mechanism for one cell, as expressions of its state (cell_state.h):
// forward rate constants (rate_constants.h), reverse ones from the equilibrium constant
//   Kc = exp(-sum_k nu_k g_k/RT) (p_ref / (R T))^(sum_k nu_k),  p_ref = one atmosphere,
// rates of progress by mass action (explicit orders as powers C^order, times [M] for three-body
// reactions), net production rates and the heat release rate. Cantera 3.2's definitions.
#pragma once

#include <vector>

#include "examples/kinetics/cell_state.h"
#include "examples/kinetics/mechanism.h"

namespace dualjit::kinetics {

struct RateLaws {
  std::vector<Expr> kf, kr;  // per reaction; kr is 0 for irreversible ones
  std::vector<Expr> rop;     // net rates of progress, kmol/m^3/s
  std::vector<Expr> wdot;    // net production rates per species, kmol/m^3/s
  Expr heat_release;         // -sum_k h_k wdot_k, W/m^3
};

// Throws MechanismError naming the file, reaction index and equation of a reaction whose rate
// law cannot be built.
RateLaws rate_laws(const Mechanism& mechanism, const CellState& state);

}  // namespace dualjit::kinetics
