// Emission order of a scalar program: only nodes that reach a store, each operand tree
// emitted depth first just before its user (deepest operand first), so that values die soon
// after they are made and few stay live at once.
#pragma once

#include <string_view>

#include "jit/scalar_program.h"

namespace dualjit::jit {

enum class ScheduleKind {
  DepthFirst,  // operand trees just before their users, stores direction by direction
  NodeMajor,   // primal node by node, all its components together (as dual numbers run)
  // Per program, whichever of the two keeps fewer values live (max_live_values). The default
  // for big graphs: a rate law built reaction by reaction keeps 282 values live node-major
  // and 469 depth-first (GRI-3.0's rates), and ran 1.18 ms instead of 1.42 ms on an H100.
  LeastLive,
};
std::string_view schedule_name(ScheduleKind kind);

// late_params: node-major reads each param just before its first user, not where expansion
// made it (depth-first always does): params read from memory where used (LoweringOptions::
// tiled_params), such as the tape columns' rest kernel's tape values, each feeding a few
// sums, are then not all live from the start.
void schedule(ScalarProgram& program, ScheduleKind kind = ScheduleKind::DepthFirst,
              bool late_params = false);

// The documented default when no tuning record exists. Measured on the Roe flux Jacobian
// (sm_90, ptxas, outputs stored as soon as computed): node-major keeps W <= 3 free of spills
// with the fewest registers, depth-first W = 4, 5 and 10 (W = 6..9 run chunks of 5: with
// uneven chunks of 6 + 4 .. 9 + 1 they spilled 24-40 B); tests/jit/lowering_test.cpp checks
// 1..10.
ScheduleKind default_schedule(int width);

// Largest number of values live at once along the order (a register-pressure estimate).
int max_live_values(const ScalarProgram& program);

}  // namespace dualjit::jit
