// Derivative expansion: forward-mode Taylor propagation (first order, and second order for
// the pairs a chunk needs) over the primal graph, producing a scalar program. Per node only
// the directions it depends on get tangent components; seeds are the identity and fold away;
// factors shared by all components of a node (1/x, the derivative of sqrt, exp) are built
// once. With prune = false every component is materialised, as a fixed-width dual would.
#pragma once

#include "jit/jacobian_pattern.h"
#include "jit/scalar_program.h"
#include "jit/tape_pattern.h"

namespace dualjit::jit {

// With `sparse` (a Jacobian plan), first-derivative entries go to their positions in the
// pattern and structural zeros are not stored.
// With `tapes` (a first-order plan that keeps them, jit/tape_pattern.h), the plan's tape chunk
// stores every tape's value and components and the other chunks read them back; without,
// tapes are the identity.
ScalarProgram expand_derivatives(const Kernel& kernel, const DerivativePlan& plan, int chunk,
                                 bool prune = true, const JacobianPattern* sparse = nullptr,
                                 const TapePattern* tapes = nullptr);

}  // namespace dualjit::jit
