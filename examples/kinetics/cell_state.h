// The state of one cell as the rate laws see it, and the kernel slots it comes from. Three
// ways to give it (ReactorState):
//   constant_pressure  input "state" = (T, Y_1..Y_ns), uniform "p" (Pa): rho = p W / (R T),
//                      1/W = sum Y_k / W_k, C_k = rho Y_k / W_k (so C is unchanged when Y is
//                      scaled, as Cantera normalises Y)
//   concentrations     input "state" = (T, C_1..C_ns) in kmol/m^3, no uniform; p = R T sum C_k
//   constant_volume    input "state" = (T, Y_1..Y_ns), uniform "rho" (kg/m^3): C_k = rho Y_k/W_k
//                      (Y taken as given), p = R T sum C_k
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dsl/kernel.h"
#include "examples/kinetics/mechanism.h"

namespace dualjit::kinetics {

enum class ReactorState { constant_pressure, concentrations, constant_volume };
std::string_view reactor_state_name(ReactorState state);  // "constant-pressure", ...

struct CellState {
  Expr T;
  std::vector<Expr> C;  // kmol/m^3, in the mechanism's species order
  Expr C_tot;           // molar density, kmol/m^3
  Expr log_p;           // ln(p / Pa)
};

// Declares the input slot "state" (ns + 1 components: T first) and the state's uniform, and
// returns the quantities they imply.
CellState declare_cell_state(KernelBuilder& kb, const Mechanism& mechanism, ReactorState state);

}  // namespace dualjit::kinetics
