// The rate laws of a mechanism for one cell, as expressions of its state (cell_state.h):
// forward rate constants (rate_constants.h), reverse ones from the equilibrium constant
//   Kc = exp(-sum_k nu_k g_k/RT) (p_ref / (R T))^(sum_k nu_k),  p_ref = one atmosphere,
// rates of progress by mass action (explicit orders as powers C^order, times [M] for three-body
// reactions), net production rates and the heat release rate. Cantera 3.2's definitions.
#pragma once

#include <string_view>
#include <vector>

#include "examples/kinetics/cell_state.h"
#include "examples/kinetics/mechanism.h"

namespace dualjit::kinetics {

// How a reversible reaction's 1/Kc = exp(sum_k nu_k g_k/RT) (R T / p_ref)^(sum_k nu_k) is built:
// the same function, at different costs (bench/RESULTS.md, GRI-3.0 on an H200).
//   exp_of_sum        one exp of the sum per reaction. The cheaper graph to differentiate: the
//                     (T, Y) Jacobian in row groups was 17-25% faster than with the products.
//   species_products  prod_k exp(g_k/RT)^nu_k (RT / p_ref)^(sum_k nu_k), with exp(g_k/RT) made
//                     once per species and shared by every reaction (454 special functions per
//                     GRI-3.0 cell instead of 711): the rates alone were 16-19% faster. Reactions
//                     with a coefficient that is not an integer of at most 4 keep one exp.
enum class InverseKc { exp_of_sum, species_products };
std::string_view inverse_kc_name(InverseKc form);  // "exp", "products"
// The form inverse_kc_name gives `name`; throws std::invalid_argument naming it otherwise.
InverseKc inverse_kc_named(std::string_view name);
// Appended to the names of kernels built in the form ("" or "_kc_products"), so that profiles,
// kernel symbols and cache messages tell the two graphs apart.
std::string_view inverse_kc_suffix(InverseKc form);

struct RateLaws {
  std::vector<Expr> kf, kr;  // per reaction; kr is 0 for irreversible ones
  std::vector<Expr> rop;     // net rates of progress, kmol/m^3/s
  std::vector<Expr> wdot;    // net production rates per species, kmol/m^3/s
  Expr heat_release;         // -sum_k h_k wdot_k, W/m^3
};

// Throws MechanismError naming the file, reaction index and equation of a reaction whose rate
// law cannot be built.
RateLaws rate_laws(const Mechanism& mechanism, const CellState& state,
                   InverseKc inverse_kc = InverseKc::exp_of_sum);

}  // namespace dualjit::kinetics
