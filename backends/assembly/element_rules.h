// Where a term's element results go: which entries of an element's values, gradient, H v,
// Jacobian or Hessian arrays (dsl/mode.h) add into which node rows and which entries of its
// vertex-pair blocks, with which signs. Built on the host once per term from its binding
// (Term::input_vertex, Term::output_scatter); the element-local gathers
// (device_element_assembly.h) read them as tables, the in-place strategies
// (strategies/in_place_strategy.h) emit them as code. The host reference
// (host_element_assembly.h) follows the same rules.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "backends/assembly/problem.h"
#include "backends/mesh/block_pattern.h"
#include "dsl/mode.h"

namespace dualjit::assembly {

// How the outputs of element terms other than the energy and the FUN3D split are summed:
// Gather, element-local results written to memory and summed by a gather in a fixed order
// (bit-identical from run to run; device_element_assembly.h, and serially on the CPU); Scatter,
// each element adds its own results with atomics in the same kernel (strategies/
// element_scatter.cpp); NodeGather, each node evaluates its incident elements and sums its own
// row in one pass, bit-identical from run to run (strategies/node_gather.cpp);
// StagedNodeGather, node-gather whose blocks are summed in shared memory per GPU block of
// consecutive rows and written out at once, coalesced (vectors as node-gather).
enum class ElementStrategy { Gather, Scatter, NodeGather, StagedNodeGather };
// "element-gather", "element-scatter", "node-gather", "staged-node-gather"
std::string_view element_strategy_name(ElementStrategy s);
// Throws std::invalid_argument listing the names.
ElementStrategy parse_element_strategy(std::string_view name);
// Whether a mode's output is a block matrix (Hessian, Jacobian) rather than node vectors
// (residual rows, gradient, H v): the two kinds take separate strategy choices.
bool mode_is_matrix(Mode mode);

// How the node rows of a vector (residual, gradient, H v) sum a term's element-local array:
// the row of the element's local vertex a gets, component c, sign[r] * local[e * stride +
// offset[r] + c] for r in [ptr[a], ptr[a + 1]).
struct RowGather {
  std::vector<int32_t> ptr;  // k + 1
  std::vector<int32_t> offset;
  std::vector<double> sign;
  int64_t stride = 0;  // doubles per element in the local array
};
// Gradient and H v of an energy term: input slot s is row input_vertex[s], offset s * B.
RowGather input_rows(const Term& term, int block);
// Residual of a vector term: output slot o goes to each of its Term::output_scatter rules.
RowGather residual_rows(const Term& term, int block);

// How entry (a, b, i, j) of the (k B) x (k B) element matrix, index q = ((a k + b) B + i) B + j,
// sums a term's element-local array: sign[r] * local[e * stride + offset[r]] for r in
// [ptr[q], ptr[q + 1]), sources in the order Problem's element matrices add them.
struct EntryGather {
  std::vector<int32_t> ptr;  // k^2 B^2 + 1
  std::vector<int32_t> offset;
  std::vector<double> sign;
  int64_t stride = 0;
};
// Hessian blocks of an energy term, from the packed upper triangle (Mode::Hessian second);
// entries of structurally zero pairs (jit/hessian_pattern.h) have no source, unless the element
// Hessians are `projected` first (a projection fills them).
EntryGather hessian_entries(const Term& term, int block, bool projected = false);
// Jacobian blocks of a vector term (Mode::Jacobian first, n_out x n_in) with scatter signs.
EntryGather jacobian_entries(const Term& term, int block);

// Per element of one element set, the stored block of each vertex pair (a, b) of `pattern`:
// slot[(e k + a) k + b], or -1 where Symmetry::Upper stores the pair in its mirror block (the
// pairs mesh::add_element_block leaves out). int32, as the BSR indices are. Throws
// mesh::MeshError for a pattern without diagonal blocks or with more than 2^31 - 1 blocks.
std::vector<int32_t> stored_block_slots(const mesh::BlockPattern& pattern, size_t set_index);

}  // namespace dualjit::assembly
