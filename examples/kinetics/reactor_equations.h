// The equations of an adiabatic, closed, homogeneous ideal-gas reactor as a kernel: the time
// derivative of its state (T, Y_1..Y_ns), Cantera's IdealGasConstPressureReactor and
// IdealGasReactor (constant volume) without walls or flows:
//   dY_k/dt = wdot_k W_k / rho
//   dT/dt   = -sum_k h_k wdot_k / (rho cp)                 constant pressure ("p", Pa)
//   dT/dt   = -sum_k (h_k - R T) wdot_k / (rho cv)          constant volume ("rho", kg/m^3)
// with molar enthalpies h_k and mass heat capacities cp = sum_k Y_k cp_k / W_k, cv = cp - R/W.
// Its Jacobian is square and aligned with the state: what a stiff integrator factors.
#pragma once

#include "dsl/kernel.h"
#include "examples/kinetics/cell_state.h"
#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/rate_laws.h"

namespace dualjit::kinetics {

// Kernel "reactor_<phase>_<state>" (then rate_law_form_suffix) with the input "state" and that
// state's uniform (cell_state.h) and the output "rhs" (ns + 1: dT/dt, then dY_k/dt). The state
// is constant_pressure or constant_volume (concentrations do not describe a closed reactor:
// MechanismError). The rate laws in the form `form` (rate_laws.h).
Kernel reactor_rhs_kernel(const Mechanism& mechanism, ReactorState state,
                          RateLawForm form = RateLawForm::derivatives);

}  // namespace dualjit::kinetics
