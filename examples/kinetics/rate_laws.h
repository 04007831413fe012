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

// The two graphs of one rate law, the same function to round-off, each the cheaper for its use
// (bench/RESULTS.md, GRI-3.0 on an H200):
//   derivatives  1/Kc = exp(sum_k nu_k g_k/RT + (sum_k nu_k) ln(R T / p_ref)), one exp per
//                reaction, and the heat release summed over reactions, -RT sum_r (dh_r/RT) q_r,
//                whose derivatives need one accumulator: the (T, Y) Jacobian in row groups was
//                17-25% faster than with 1/Kc as the values' products. The sum is a tape, so
//                that its tangent is taken once, beside the rates' (GRI-3.0's Jacobian 4.9 ->
//                4.4 ms in row groups, 4.3 -> 3.4 ms by the tape columns).
//   values       1/Kc = prod_k exp(g_k/RT)^nu_k (RT / p_ref)^(sum_k nu_k) with exp(g_k/RT) made
//                once per species and shared by every reaction (454 special functions per
//                GRI-3.0 cell instead of 711; reactions with a coefficient that is not an
//                integer of at most 4 keep one exp), and the heat release summed over species
//                from the finished wdot_k, -RT sum_k (h_k/RT) wdot_k (GRI-3.0's rates: 6,868
//                operations per cell instead of 8,119, and no h_k/RT live while the reactions
//                run).
//   columns      the derivatives' rates of progress (tapes) and 1/Kc, its sum_k nu_k g_k/RT one
//                polynomial in the powers of T per reaction (g_over_RT_change), so that the tapes'
//                launch holds no species' g/RT and its tangent across the reactions (GRI-3.0's
//                spill reloads 15.8 -> 4.3 KB a thread, J 3.75 -> 3.65 ms; the row groups of the
//                derivatives form lost 15% with it), and the heat release summed over species as
//                the values' is, -RT sum_k (h_k/RT) wdot_k: linear in the species' rows, so the
//                tape columns (dense Jacobians, either order) compose its row from the tapes they
//                read anyway, and the tapes' launch keeps no heat-release tangent across every
//                reaction.
enum class RateLawForm { derivatives, values, columns };
std::string_view rate_law_form_name(RateLawForm form);  // "derivatives", "values", "columns"
// The form rate_law_form_name gives `name`; throws std::invalid_argument naming it otherwise.
RateLawForm rate_law_form_named(std::string_view name);
// Appended to the names of kernels built in the form ("" or "_values"), so that profiles,
// kernel symbols and cache messages tell the two graphs apart.
std::string_view rate_law_form_suffix(RateLawForm form);

struct RateLaws {
  std::vector<Expr> kf, kr;  // per reaction; kr is 0 for irreversible ones
  std::vector<Expr> rop;     // net rates of progress, kmol/m^3/s
  std::vector<Expr> wdot;    // net production rates per species, kmol/m^3/s
  Expr heat_release;         // -sum_k h_k wdot_k, W/m^3 (summed as the form says)
};

// Throws MechanismError naming the file, reaction index and equation of a reaction whose rate
// law cannot be built.
RateLaws rate_laws(const Mechanism& mechanism, const CellState& state,
                   RateLawForm form = RateLawForm::derivatives);

}  // namespace dualjit::kinetics
