// Operations an emitted element function performs, by kind, so that pruning gains are
// visible and comparable with hand-written code.
#pragma once

#include <string>

#include "jit/scalar_program.h"

namespace dualjit::jit {

struct OpCounts {
  int add = 0;  // add, sub, neg
  int mul = 0;
  int fma_pairs = 0;  // multiplications whose only use is an add or sub (fusable)
  int div = 0;
  int sqrt = 0;
  int special = 0;  // exp, log, pow, trig, hyperbolic, cbrt
  int select = 0;   // comparisons, select, min, max, abs, sign
  int loads = 0;    // inputs, params, uniforms, directions
  int stores = 0;

  // Floating-point operations, counting an FMA-able pair as two and specials as one.
  int flops() const { return add + mul + div + sqrt + special; }
  OpCounts& operator+=(const OpCounts& o);
};

OpCounts count_ops(const ScalarProgram& scheduled);
std::string format(const OpCounts& c);

}  // namespace dualjit::jit
