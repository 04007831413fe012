// Primal values the row groups of a plan share. Each row group computes its rows from the
// inputs, so the special functions below several groups' rows are evaluated once per group:
// GRI-3.0's (T, Y) Jacobian in rows of 2 evaluates 2,931 a cell where its graph has 711
// (bench/RESULTS.md). A values pass stores those once per element; the groups load their
// values and still compute their tangents from their operands' (exp's derivative is its value).
#pragma once

#include <vector>

#include "dsl/kernel.h"
#include "jit/derivative_plan.h"

namespace dualjit::jit {

// Whether a node of this op is worth storing once instead of recomputing: the transcendental
// functions (tens of instructions each in fp64), not arithmetic.
bool is_shared_candidate(Op op);

// The candidate nodes in the cones of at least two of the plan's row groups (chunks with the
// same outputs form one group), ascending. Empty for a plan without row groups.
std::vector<NodeId> shared_values(const Kernel& kernel, const DerivativePlan& plan);

}  // namespace dualjit::jit
