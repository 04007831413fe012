// The structural sparsity of a kernel's Hessian: which pairs of active inputs some output's
// second derivative can be nonzero for, from the graph alone. A sum separates (x0^2 + x1^2
// has no (0, 1)), a product couples its factors' inputs, a nonlinear function couples all
// of its operand's; comparisons and sign carry no derivative, a select's condition neither,
// and abs, min, max and selects are piecewise linear in their operands (the conventions of
// dsl/derivative_rules.h). What assembly adds of an element Hessian skips the other pairs.
#pragma once

#include <cstdint>
#include <vector>

#include "dsl/kernel.h"

namespace dualjit::jit {

struct HessianPattern {
  int n = 0;  // active inputs
  // Row i's bit j: d2/dxi dxj may be nonzero (symmetric). Empty: not analysed, all may be.
  std::vector<uint64_t> rows;
  bool nonzero(int i, int j) const { return rows.empty() || ((rows[i] >> j) & 1u); }
};

// The union over the kernel's outputs. Kernels of more than 64 inputs are not analysed (a
// dense pattern): their Hessians are not assembled.
HessianPattern hessian_pattern(const Kernel& kernel);

}  // namespace dualjit::jit
