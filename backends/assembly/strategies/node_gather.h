// node-gather: one thread per node walks the node's incident elements (mesh::Incidence),
// evaluates each of them whole and adds the rows of the node's local vertex: into registers
// for the node's row of the residual, gradient or H v (stored once), or into the node's own row
// of blocks for the Hessian and the general Jacobian (each row has one writer, so plain adds).
// No atomics and a fixed order: bit-identical from run to run, like element-gather, but in
// one pass with nothing element-local in memory. The price is recomputation: each element is
// evaluated once per vertex (k times), so it suits cheap elements (springs, triangles) more
// than expensive ones; the tuner decides. The CPU backend runs the same text over OpenMP.
#pragma once

#include <cstdint>

#include "backends/assembly/element_rules.h"
#include "dsl/mode.h"
#include "jit/element_driver.h"
#include "jit/lowering.h"

namespace dualjit::assembly {

// The lowering options of term's node-gather kernel in `mode` (as element_scatter_lowering:
// Value, Gradient, Hvp rows; Hessian, Jacobian blocks); nodes_per_block threads per block.
jit::LoweringOptions node_gather_lowering(const Term& term, Mode mode, int block, int width,
                                          int nodes_per_block);

// The arrays of one launch beside the element inputs.
struct NodeGatherTarget {
  int64_t n_nodes = 0;
  const int64_t* inc_ptr = nullptr;  // the term's mesh::Incidence
  const int64_t* inc_element = nullptr;
  const int8_t* inc_vertex = nullptr;
  double* out = nullptr;             // n_nodes x B rows, or the pattern's block values
  bool accumulate = false;           // add to out (an earlier term's sums) instead of storing
  const int32_t* row_ptr = nullptr;  // blocks: the pattern's BSR row pointer
  const int32_t* slots = nullptr;    // blocks: stored_block_slots of the term's element set
};
jit::ArgValues node_gather_args(const jit::ElementLaunch& in, const NodeGatherTarget& t);

}  // namespace dualjit::assembly
