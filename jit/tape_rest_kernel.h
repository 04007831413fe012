// What completes the Jacobian of a tape kernel's linear outputs (jit/tape_linear_outputs.h)
// beyond the tapes' tangents that jit/emit_tape_columns.h composes: a kernel of the same slots
// and one more param slot, "tape_values" (a tape's value each, held as data), whose outputs are
//   for each linear output o (TapeColumnPlan::outputs): sum_t scale_t F_t(x) P_t + R_o(x) over
//     the terms t with factors (a term scale_t P_t moves with x only through the tape's
//     tangent, which the columns carry: left out, it costs nothing here),
//   for each cut c (TapeColumnPlan::cuts): c(x),
//   for each factor product f (TapeColumnPlan::factors): f(x).
// With P the tapes' values, the first outputs' Jacobian is the part of d out / dx that the
// tapes' tangents do not carry (the factors' and the rest's own derivatives: the heat release's
// T column for a mechanism); their values are the outputs' less the factor-free terms. The
// cuts' Jacobian rows are the d cut / dx the columns' launch adds, and the factor products'
// values what it multiplies by. The present lowering differentiates it like any kernel.
#pragma once

#include "dsl/kernel.h"
#include "jit/tape_column_groups.h"

namespace dualjit::jit {

struct TapeRestKernel {
  Kernel kernel;
  int tape_values = 0;  // flat index among the params of "tape_values"'s first component
};

// Throws std::invalid_argument naming the kernel when a factor, rest or cut reaches a tape, or
// the kernel already has a slot "tape_values".
TapeRestKernel tape_rest_kernel(const Kernel& kernel, const TapePattern& tapes,
                                const std::vector<TapeLinearOutput>& outputs,
                                const TapeColumnPlan& plan);

}  // namespace dualjit::jit
