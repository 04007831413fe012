// A Problem describes what is assembled: one node field (n_nodes x B, e.g. 5 conservative
// variables per CFD node, 3 coordinates per cloth vertex) and one or more terms over it, each a
// kernel applied to an element set, with the binding of its inputs and outputs to the
// elements' vertices, its params and its uniforms. It owns no kernels and no backend state;
// assembly::Assembler (assembler.h) turns it into residuals, Jacobians, energies, gradients,
// Hessians and Hessian-vector products. The block sparsity its terms imply is built once, on
// first use, and shared by every assembly of the problem.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/mesh/block_csr.h"
#include "backends/mesh/element_set.h"
#include "dsl/kernel.h"
#include "dsl/mode.h"

namespace dualjit::assembly {

// Output component i of an element goes to row block `vertex` of the residual, times `sign`.
struct Scatter {
  int vertex = 0;
  double sign = 1.0;
};

struct Term {
  std::string name;
  std::shared_ptr<const Kernel> kernel;
  // Optional: a cheaper graph of the same function for value-only evaluation (residuals,
  // energies), with the same slots as `kernel`. A graph that is cheaper to evaluate can be
  // dearer to differentiate, so derivatives, sparsity patterns and block sizes keep `kernel`.
  std::shared_ptr<const Kernel> value_kernel;
  // Optional: the graph of the same function that the tape columns differentiate (dense
  // element blocks, either order, AssemblerOptions::element_tape_columns), with the same
  // slots: one whose outputs those launches compose cheaper than the row groups would (a
  // mechanism's heat release summed over species, examples/kinetics/rate_laws.h).
  std::shared_ptr<const Kernel> columns_kernel;
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

  // The graph lowered for `mode`: value_kernel for Mode::Value when there is one, else kernel.
  const Kernel& kernel_for(Mode mode) const {
    return mode == Mode::Value && value_kernel ? *value_kernel : *kernel;
  }
  // The graph the tape columns lower: columns_kernel when there is one, else kernel.
  const Kernel& tape_columns_kernel() const { return columns_kernel ? *columns_kernel : *kernel; }
};

// Throws ProblemError, starting with `what`, naming the first input, param, uniform or output
// slot in which `other` (a value_kernel or a columns_kernel, `role` says which: "value",
// "columns") differs from `kernel` (name, size, or present in one only).
void check_kernel_slots(const std::string& what, const Kernel& kernel, const Kernel& other,
                        const std::string& role = "value");

// How a batch of dense n_out x n_in element blocks is stored: CellMajor, [e][r][c], each
// element's block row-major; CellMajorColumns, [e][c][r], each block column-major, as cuBLAS's
// and LAPACK's batched factorizations take them; ComponentMajor, [r][c][e]. Sparse blocks (an
// element's pattern values) are CellMajor or ComponentMajor.
enum class BlockOrder { CellMajor, ComponentMajor, CellMajorColumns };

// Where entry i (r * n_in + c) of element e of `elements` lies in `order`.
int64_t block_offset(BlockOrder order, int64_t e, int64_t i, int64_t elements, int n_out, int n_in);

class Problem {
 public:
  Problem(int64_t n_nodes, int block_size);

  // Validates the term against the problem (slot sizes, binding, connectivity, param sizes;
  // a value_kernel's and a columns_kernel's slots equal to the kernel's) and throws
  // assembly::ProblemError naming the term and the first offending slot or element.
  size_t add_term(Term term);
  const Term& term(size_t i) const { return terms_.at(i); }
  size_t n_terms() const { return terms_.size(); }
  int64_t n_nodes() const { return n_nodes_; }
  int block_size() const { return block_; }

  // Sparsity over the node graph of all terms, built once per symmetry and reused.
  const mesh::BlockPattern& pattern(mesh::Symmetry symmetry = mesh::Symmetry::General);
  // The general pattern without its diagonal (FUN3D Aoff), built once.
  const mesh::BlockPattern& off_pattern();

  // Throws ProblemError when `values` is not n_nodes x B ("state has 10 values, expected 150").
  void check_values(std::span<const double> values, const std::string& what) const;

 private:
  int64_t n_nodes_;
  int block_;
  std::vector<Term> terms_;
  std::map<mesh::Symmetry, std::unique_ptr<mesh::BlockPattern>> patterns_;
  std::unique_ptr<mesh::BlockPattern> off_pattern_;
};

class ProblemError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace dualjit::assembly
