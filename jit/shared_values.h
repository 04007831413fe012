// What the row groups of a plan share. Each row group computes its rows from the inputs, so
// the nodes below several groups' rows are computed once per group: GRI-3.0's (T, Y) Jacobian
// in rows of 2 computes most reactions' rates of progress, with their 54 directions, three or
// four times (bench/RESULTS.md). A values pass computes the groups' shared frontier once per
// element and stores each node's value and first-order components; the groups load them and
// expand only what is theirs alone.
#pragma once

#include <vector>

#include "dsl/kernel.h"
#include "jit/derivative_plan.h"

namespace dualjit::jit {

// The shared frontier of a plan in row groups: walking down from each group's outputs through
// nodes that group alone needs, the first nodes that two or more groups need. A node whose
// operands are all leaves or constants is cheaper to recompute than to load, and is walked
// through. Each gets its slots in node order (SharedNode). Empty without two or more row
// groups, or when a group has more than one column chunk or second-order pairs (the stored
// components must be every chunk's).
std::vector<SharedNode> shared_frontier(const Kernel& kernel, const DerivativePlan& plan);

}  // namespace dualjit::jit
