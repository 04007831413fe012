// Kernels of a mechanism's rate laws, built at run time. Every kernel has the input "state"
// (ns + 1 components: T in K, then Y_k or C_k, by RateLawOptions::state) and that state's
// uniform ("p" in Pa, "rho" in kg/m^3, or none: cell_state.h).
//
// production_rates_kernel's one output "rates" has ns + 1 components: wdot_k (kmol/m^3/s) in
// the mechanism's species order, then the heat release rate -sum_k h_k wdot_k (W/m^3). One
// vector, so that a cell's Jacobian is one square (ns + 1) x (ns + 1) block aligned with the
// state, and its first ns rows, contiguous in a cell-major block, are dwdot/d(T, Y).
#pragma once

#include "dsl/kernel.h"
#include "examples/kinetics/cell_state.h"
#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/rate_laws.h"

namespace dualjit::kinetics {

struct RateLawOptions {
  ReactorState state = ReactorState::constant_pressure;
  // The graph's form (rate_laws.h): values makes the cheaper graph for the rates alone,
  // derivatives the cheaper one to differentiate in row groups, columns by the tape columns.
  RateLawForm form = RateLawForm::derivatives;
};

// Kernel "kinetics_<phase>_<state>" (then rate_law_form_suffix); throws MechanismError naming the
// file, reaction index and equation of a reaction whose rate law cannot be built.
Kernel production_rates_kernel(const Mechanism& mechanism, const RateLawOptions& options = {});

// Kernel "kinetics_<phase>_<state>[_values]_rate_constants": outputs "kf" and "kr" (one per
// reaction, kr = 0 for irreversible ones; k excludes [M] for three-body reactions, as Cantera's),
// for reports and tests.
Kernel rate_constants_kernel(const Mechanism& mechanism, const RateLawOptions& options = {});

}  // namespace dualjit::kinetics
