// jit::head_derivative (jit/tape_head.h) over doubles: a factored tape's derived component from
// its leaves' values, as a reader computes it.
#pragma once

#include <functional>

#include "jit/tape_head.h"

namespace dualjit::test {

struct HeadValues {
  using Value = double;
  std::function<double(int)> value;  // leaf i's
  double leaf(int i) const { return value(i); }
  double constant(double c) const { return c; }
  double add(double a, double b) const { return a + b; }
  double sub(double a, double b) const { return a - b; }
  double mul(double a, double b) const { return a * b; }
  double div(double a, double b) const { return a / b; }
  double neg(double a) const { return -a; }
};

// d operand / d (derived direction `component`) of `head`.
inline double derived_value(const jit::TapeHead& head, int component,
                            std::function<double(int)> leaf_value) {
  HeadValues values{std::move(leaf_value)};
  return jit::head_derivative(head, head.derived.at(static_cast<size_t>(component)).leaf, values);
}

}  // namespace dualjit::test
