// Exps two at a time: a scheduled program's order changed so that independent exps sit next
// to each other, for emission as one out-of-line call that computes both (driver_text.h
// dj_exp2). Out of line, each call saves and restores registers in local memory that reach L2:
// dj_exp's 16 B a call, dj_exp2's 16 B for two (bench/RESULTS.md).
#pragma once

#include "jit/scalar_program.h"

namespace dualjit::jit {

// Each exp whose result is not yet read waits for the next exp whose operand does not depend on
// it; the statements that read the first (and what they feed) move after the pair, in order.
// After `window` moved statements the exp stays alone. Values and stores are unchanged; only
// program.order moves.
void pair_exps(ScalarProgram& program, int window = 40);

// Whether emission may compute `a` and `b`, adjacent in order, in one call: both exps, `b` not
// reading `a`.
bool exp_pair(const Graph& g, NodeId a, NodeId b);

}  // namespace dualjit::jit
