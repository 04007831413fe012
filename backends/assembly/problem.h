// A Problem: one node field (n_nodes x B, e.g. 5 conservative variables per CFD node, 3
// coordinates per cloth vertex) and one or more terms over it, each a kernel applied to an
// element set. Local derivatives from the JIT are assembled into what a solver consumes:
// residual or gradient vectors, the total energy, block-CSR Jacobians (optionally FUN3D-style
// with diagonal blocks apart) and Hessians, Hessian-vector products, dense element blocks.
//
// This is the host assembly path: element kernels run on the CPU backend, assembly is serial
// and so deterministic. It is also the reference the GPU assembly strategies are checked
// against.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/cpu/cpu_kernel.h"
#include "backends/mesh/block_csr.h"
#include "backends/mesh/element_set.h"

namespace dualjit::assembly {

// Output component i of an element goes to row block `vertex` of the residual, times `sign`.
struct Scatter {
  int vertex = 0;
  double sign = 1.0;
};

struct Term {
  std::string name;
  std::shared_ptr<const Kernel> kernel;
  mesh::ElementSet elements;
  // Element vertex each active input slot is gathered from (every slot is the node field,
  // B wide); empty: slot s <- vertex s.
  std::vector<int> input_vertex;
  // Vector-output terms: where each output slot (B wide) is scattered. Empty: slot 0 to
  // vertex 0 with sign +1. Ignored for energy terms.
  std::vector<std::vector<Scatter>> output_scatter;
  bool energy = false;         // scalar output summed into the energy; derivatives of it
  std::vector<double> params;  // n_elements x n_params
  std::vector<double> uniforms;
};

enum class BlockOrder { CellMajor, ComponentMajor };

class Problem {
 public:
  Problem(int64_t n_nodes, int block_size);

  // Validates the term against the problem (slot sizes, binding, connectivity, param sizes)
  // and throws assembly::ProblemError naming the term and the first offending element.
  size_t add_term(Term term);
  const Term& term(size_t i) const { return terms_.at(i); }
  size_t n_terms() const { return terms_.size(); }
  int64_t n_nodes() const { return n_nodes_; }
  int block_size() const { return block_; }

  // Sparsity over the node graph of all terms, built once per symmetry and reused.
  const mesh::BlockPattern& pattern(mesh::Symmetry symmetry = mesh::Symmetry::General);
  // The general pattern without its diagonal (FUN3D Aoff), built once.
  const mesh::BlockPattern& off_pattern();

  // Vector-output terms.
  std::vector<double> residual(std::span<const double> state);
  mesh::BlockCsr<double> jacobian(std::span<const double> state);
  // FUN3D layout: diagonal blocks apart in fp64, off-diagonal blocks in OffT.
  template <class OffT>
  mesh::SplitBlockCsr<OffT> jacobian_split(std::span<const double> state);

  // Energy terms.
  double energy(std::span<const double> state);
  std::vector<double> gradient(std::span<const double> state);
  mesh::BlockCsr<double> hessian(std::span<const double> state,
                                 mesh::Symmetry symmetry = mesh::Symmetry::General);
  std::vector<double> hvp(std::span<const double> state, std::span<const double> direction);

  // Dense per-element Jacobians of one vector term (n_out x n_in each): cell-major
  // [e][r][c], or component-major [r][c][e] for consumers that vectorise over cells.
  std::vector<double> element_jacobians(size_t term, std::span<const double> state,
                                        BlockOrder order = BlockOrder::CellMajor);

  // The element-local results every output above is assembled from, for other assembly paths
  // (the GPU's) and their tests: lowering options of a term's element kernel in a mode, and
  // its element-major results (values, first, second as jit/lowering.h lays them out).
  jit::LoweringOptions element_lowering(size_t term, Mode mode) const;
  struct ElementResults {
    std::vector<double> values, first, second;
  };
  ElementResults element_results(size_t term, Mode mode, std::span<const double> state,
                                 std::span<const double> direction = {});

 private:
  using Local = ElementResults;
  Local run(size_t term, Mode mode, std::span<const double> state,
            std::span<const double> direction = {});
  const cpu::CpuKernel& kernel_for(size_t term, Mode mode);
  void check_state(std::span<const double> state, const char* what) const;
  // (k B) x (k B) element matrices of a term, row-major, for mesh::add_element_blocks.
  std::vector<double> jacobian_element_matrices(size_t term, const Local& local) const;
  std::vector<double> hessian_element_matrices(size_t term, const Local& local) const;

  int64_t n_nodes_;
  int block_;
  std::vector<Term> terms_;
  std::map<std::pair<size_t, Mode>, std::unique_ptr<cpu::CpuKernel>> kernels_;
  std::map<mesh::Symmetry, std::unique_ptr<mesh::BlockPattern>> patterns_;
  std::unique_ptr<mesh::BlockPattern> off_pattern_;
};

class ProblemError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace dualjit::assembly
