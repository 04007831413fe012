// The strategies that sum element terms' outputs in place, inside the element kernel (every
// ElementStrategy of element_rules.h but Gather): node rows of the residual, gradient and H v,
// and stored blocks of the Hessian and the general Jacobian. One unit per file
// (element_scatter.cpp, node_gather.cpp), listed in in_place_strategy.cpp; the assemblies
// (device_element_assembly.h, host_in_place_assembly.h) run any of them through this interface.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/assembly/element_rules.h"
#include "backends/mesh/block_pattern.h"
#include "dsl/mode.h"
#include "jit/element_driver.h"
#include "jit/hessian_projection.h"
#include "jit/lowering.h"

namespace dualjit::assembly {

// Where one launch sums to, and the structure it may read.
struct InPlaceTarget {
  int64_t n_nodes = 0;
  // The term's mesh::Incidence (when the strategy needs_incidence()): its offsets by local
  // vertex (mesh::incidence_side_offsets), elements and other nodes
  // (mesh::incidence_other_nodes).
  const uint32_t* inc_side = nullptr;
  const int32_t* inc_element = nullptr;
  const int32_t* inc_nodes = nullptr;
  // mesh::nodes_with_elements of the term (null: every node has elements); a node-owning
  // strategy that adds into rows already written visits only these.
  const int32_t* active = nullptr;
  int64_t n_active = 0;
  double* out = nullptr;  // n_nodes x B rows, or the pattern's block values
  // An earlier term has summed into out (else out holds whatever adds_to_output() asks).
  bool accumulate = false;
  const int32_t* row_ptr = nullptr;  // blocks: the pattern's BSR row pointer
  const int32_t* slots = nullptr;    // blocks: stored_block_slots of the term's element set
  // InPlaceShape::with_energy_gradient: the gradient's n_nodes x B rows and each node's share
  // of the energy (the elements whose local vertex 0 it is), under the same accumulate flag.
  double* gradient = nullptr;
  double* node_energy = nullptr;
  // Whether an earlier launch has summed into gradient and node_energy (their own flag: the
  // terms that fill them need not be the ones that fill out first).
  bool accumulate_energy_gradient = false;
  // InPlaceShape::node_terms, in order: each one's incidence (the side offsets of a
  // single-vertex set are a row pointer by node, n_nodes + 1), its params and its uniforms; and
  // the index of each node's diagonal block in the pattern, where they add.
  struct NodeTerm {
    const uint32_t* inc_side = nullptr;
    const int32_t* inc_element = nullptr;
    const double* params = nullptr;
    std::vector<double> uniforms;
    bool operator==(const NodeTerm&) const = default;
  };
  std::vector<NodeTerm> node_terms;
  const int32_t* diagonal_slot = nullptr;

  bool operator==(const InPlaceTarget&) const = default;
};

// What a unit's kernel is built for besides the term and mode.
struct InPlaceShape {
  int block = 1;              // B, the node field's width
  int width = 0;              // W; 0: one chunk
  int items_per_block = 128;  // threads per GPU block (one per element or node)
  // Blocks (Hessian, Jacobian): the matrix's pattern, for units that size shared memory by it;
  // null for rows.
  const mesh::BlockPattern* pattern = nullptr;
  // Hessian: each element's local Hessian projected before it is summed (other modes ignore it).
  jit::HessianProjection projection;
  // Hessian: the same kernel also sums the gradient rows and the energy per node from the
  // element results it already has (the energy and gradient of a Newton step for the price of
  // the Hessian alone); only for units that sums_energy_gradient().
  bool with_energy_gradient = false;
  // Hessian of a multi-vertex term, for units that evaluates_node_terms(): single-vertex
  // energy terms (a per-vertex mass, gravity) the kernel also evaluates at each of its nodes,
  // adding their blocks to the node's diagonal block (and their gradient and energy, with
  // with_energy_gradient). A single-vertex term with a kernel of its own reads and writes a
  // scattered block per node, a large share of a cheap Hessian (bench/RESULTS.md, the cloth
  // step); here it costs its arithmetic and its inputs.
  std::vector<const Term*> node_terms = {};
  // Blocks per multiprocessor ptxas must fit (jit::LaunchLayout::min_blocks, from the element
  // layout): a cap on registers that buys occupancy; 0 leaves ptxas free. Units whose occupancy
  // a shared-memory tile sets, and projected Hessians, choose their own.
  int min_blocks = 0;
};

// The single-vertex energy terms of `p`, in order: what a multi-vertex term's Hessian kernel
// evaluates at its nodes (InPlaceShape::node_terms) under a unit that evaluates_node_terms().
std::vector<size_t> single_vertex_energy_terms(const Problem& p);

class InPlaceStrategy {
 public:
  virtual ~InPlaceStrategy() = default;
  virtual ElementStrategy kind() const = 0;
  // Lowering options of term's kernel in `mode`: Value (a vector term's residual rows),
  // Gradient or Hvp (an energy term's rows), Hessian (an energy term's blocks), Jacobian (a
  // vector term's blocks). Throws ProblemError naming the term and the strategy for a mode
  // that does not fit the term (or a shape it cannot serve).
  virtual jit::LoweringOptions lowering(const Term& term, Mode mode,
                                        const InPlaceShape& shape) const = 0;
  // True: the kernel adds to out, which must be zeroed before the first term. False: the first
  // term (accumulate false) stores every entry itself.
  virtual bool adds_to_output() const = 0;
  virtual bool needs_incidence() const = 0;
  // Whether the unit's Hessian kernels can also sum the energy and gradient
  // (InPlaceShape::with_energy_gradient): a unit that owns each node's rows can, without atomics.
  virtual bool sums_energy_gradient() const { return false; }
  // Whether the unit's Hessian kernels of multi-vertex terms can evaluate the single-vertex
  // terms at their nodes (InPlaceShape::node_terms): the assemblies then run no kernel of the
  // single-vertex terms' own.
  virtual bool evaluates_node_terms() const { return false; }
  virtual jit::ArgValues args(const jit::ElementLaunch& inputs, const InPlaceTarget& t) const = 0;
};

// Throws std::invalid_argument for ElementStrategy::Gather (not in place).
const InPlaceStrategy& in_place_strategy(ElementStrategy s);

// What the units share: the array a mode's entries come from ("val", "d1", "d2") and the rules
// of element_rules.h for the term (rows, or entries for blocks; the other left empty). Throws
// ProblemError "term '<name>': <strategy> <mode>: ..." for a mode that does not fit the term.
struct InPlaceRules {
  std::string source;
  RowGather rows;
  EntryGather entries;
  jit::HessianProjection projection;  // Hessian only: applied to d2 before the sums
  // Hessian with InPlaceShape::with_energy_gradient: the gradient rows (from "d1"); else empty.
  RowGather gradient_rows;
  bool blocks() const { return !entries.ptr.empty(); }
  bool with_energy_gradient() const { return !gradient_rows.ptr.empty(); }
};
InPlaceRules in_place_rules(const Term& term, Mode mode, const InPlaceShape& shape,
                            const std::string& strategy);
// Lowering options common to the units (mode, width, binding, one thread per item). A Hessian
// projected by teams of lanes (jit::projection_team_lanes) is compiled for 20 warps per
// multiprocessor: its sweeps are latency-bound, and the registers ptxas would take otherwise
// (255, 8 warps) leave too few warps to hide the shuffles and divisions (bench/RESULTS.md).
jit::LoweringOptions in_place_lowering(const Term& term, Mode mode, const InPlaceShape& shape);

}  // namespace dualjit::assembly
