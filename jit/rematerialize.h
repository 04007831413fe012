// Cheap values computed again just before each later reader instead of held from their first:
// an add, subtraction, product or negation whose operands live at least as long as it does
// (species' concentrations and their products, differences of Gibbs sums, held across a
// mechanism's reactions, are most of GRI-3.0's tape chunk's largest live set).
#pragma once

#include "jit/scalar_program.h"

namespace dualjit::jit {

// `scheduled` with each such value's readers after the first reading a copy made just before
// them; scheduled, in the same order otherwise.
ScalarProgram rematerialize(const ScalarProgram& scheduled);

}  // namespace dualjit::jit
