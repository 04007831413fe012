// element-scatter: a term's element kernel adds its own results into the node rows (residual,
// gradient, H v) or the stored blocks (Hessian, general Jacobian) with atomics, one element per
// thread, in one pass: nothing element-local goes to memory and no gather follows. Where each
// entry goes (element_rules.h) is emitted as code, not read from tables. Sums are in atomic
// order, so the last bits vary from run to run; the element-local gather
// (device_element_assembly.h) is the deterministic alternative. On the CPU backend the
// atomics are OpenMP's.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/assembly/element_rules.h"
#include "dsl/mode.h"
#include "jit/element_driver.h"
#include "jit/lowering.h"

namespace dualjit::assembly {

// The lowering options of term's element-scatter kernel in `mode`: Value (the residual rows of
// a vector term), Gradient or Hvp (the rows of an energy term), Jacobian (the blocks of a
// vector term), Hessian (the blocks of an energy term). W = width (0: one chunk);
// elements_per_block threads per block. Throws ProblemError naming the term for a mode that
// does not fit it.
jit::LoweringOptions element_scatter_lowering(const Term& term, Mode mode, int block, int width,
                                              int elements_per_block);

// The arguments of one launch: the element-local inputs of `in` (its outputs unused), the
// output (n_nodes x B rows, or the pattern's blocks, zeroed or holding earlier terms' sums)
// and, for blocks, stored_block_slots of the term's element set.
jit::ArgValues element_scatter_args(const jit::ElementLaunch& in, double* out,
                                    const int32_t* slots = nullptr);

}  // namespace dualjit::assembly
