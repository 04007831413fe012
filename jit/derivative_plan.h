// Which derivatives each chunk of an element computes. The n input directions are split
// into ceil(n/W) chunks of at most W, as equal as n allows; a chunk carries first-order directions
// (seeds) and, for second order, the pairs of them whose second derivative it needs.
// A vector kernel's outputs can also be split into groups of R rows (Value and Jacobian): a
// chunk then stores only its group's rows, and computes only what they need, so each chunk's
// live values are its rows' working set, not the whole kernel's (a rate law's 53 rows of 54
// tangents do not fit in registers together; one row does).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "dsl/kernel.h"
#include "dsl/mode.h"

namespace dualjit::jit {

// A first-order direction: the unit vector of one input, or the HVP direction v.
struct Direction {
  int input = -1;  // flat input index, or -1 for v
  bool is_hvp_vector() const { return input < 0; }
  bool operator==(const Direction&) const = default;
};

// Where a derivative lands in the per-element output arrays (dsl/mode.h).
enum class Target { Value, First, Second, Tape };

struct Chunk {
  std::vector<Direction> directions;
  std::vector<std::pair<int, int>> pairs;  // (i, j) into directions, i <= j
  bool writes_values = false;
  // Gradient components this chunk writes (Hessian, HVP); Jacobian columns otherwise.
  std::vector<int> first_columns;
  // The outputs (rows) whose values and first derivatives this chunk stores; empty: all.
  std::vector<int> outputs;
  // Stores the kernel's tapes (jit/tape_pattern.h), and no outputs: the first chunk of a plan
  // that keeps them, over every input, before the chunks that read them.
  bool tape = false;
};

struct DerivativePlan {
  Mode mode = Mode::Value;
  int width = 1;  // W
  int rows = 0;   // outputs per row group; 0: one group of all outputs
  int n_inputs = 0;
  int n_outputs = 0;
  std::vector<Chunk> chunks;
};

// W <= 0 means W = n (one chunk). For Hessians W counts rows per chunk: a chunk computes
// rows [r0, r1) of the upper triangle and so needs the tangents of directions >= r0.
// For HVPs chunk c computes (Hv)_j and g_j for its j's, with v as one extra direction.
// rows > 0 (Value and Jacobian modes) splits the outputs into ceil(n_out/rows) groups of at
// most rows, as equal as n_out allows; every group runs every column chunk.
DerivativePlan plan_derivatives(const Kernel& kernel, Mode mode, int width, int rows = 0);

// Puts the tape chunk (Chunk::tape) first: a first-order plan of a kernel with tapes.
void add_tape_chunk(DerivativePlan& plan);

std::string describe(const DerivativePlan& plan);

}  // namespace dualjit::jit
