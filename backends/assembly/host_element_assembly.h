// Element-local results assembled on the host: each term's element kernel runs on the CPU
// backend and writes every element's values and derivatives to memory (the element-local
// driver), then the host adds them up serially, in element order: deterministic, and the
// reference the other assembly paths are checked against. Produces every output of a Problem
// (assembler.h uses it for the CPU backend's energy, gradient, Hessian, HVP, general Jacobian
// and element blocks); used directly only as the tests' reference.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <vector>

#include "backends/assembly/host_tape_columns.h"
#include "backends/assembly/problem.h"
#include "backends/cpu/cpu_kernel.h"
#include "backends/mesh/block_csr.h"
#include "jit/element_driver.h"

namespace dualjit::assembly {

// Lowering options of a term's element kernel in a mode (W = width; 0: one chunk).
// rows: outputs per row group of a Jacobian (jit/derivative_plan.h); other modes ignore it.
jit::LoweringOptions element_lowering(const Term& term, Mode mode, int width = 0, int rows = 0);

// How the element blocks' kernels store first derivatives: staged, written by each warp in the
// order asked for with no second pass (tiled, then reordered by one pass, when a kernel's
// chunks do not stage).
jit::FirstStores block_stores(BlockOrder order);

// The inputs of one host launch of term's kernel `l` (its outputs unset): host arrays of the
// term and the node-major state (and, for Hvp, direction).
jit::ElementLaunch host_element_inputs(const Term& term, const jit::LoweredKernel& l, Mode mode,
                                       std::span<const double> state,
                                       std::span<const double> direction);

// Element-major results of one term (values, first, second as jit/lowering.h lays them out).
struct ElementResults {
  std::vector<double> values, first, second;
};

// Element blocks stored as tiles (jit::FirstStores::Tiled: entry i of element e at
// (e / 32 * entries + i) * 32 + e % 32) in `order`: what dj_untile does on the GPU. Blocks of
// n_out rows (entries / n_out columns; sparse blocks' pattern values: 1), which
// CellMajorColumns transposes by: no default, which would leave its blocks row-major.
std::vector<double> untiled(std::span<const double> tiles, int64_t elements, int64_t entries,
                            BlockOrder order, int n_out);

class HostElementAssembly {
 public:
  // `problem` must outlive this; terms added later are seen.
  // tape_columns: the dense element blocks (either order) of a term whose kernel keeps tapes
  // and whose outputs are all linear in them by the tape columns' launches
  // (backends/assembly/host_tape_columns.h) instead of the row groups.
  explicit HostElementAssembly(Problem& problem, int width = 0, int rows = 0,
                               bool tape_columns = false,
                               TapeColumnsSettings tape_column_settings = {})
      : p_(problem),
        width_(width),
        rows_(rows),
        tape_columns_(tape_columns),
        tape_column_settings_(tape_column_settings) {}

  std::vector<double> residual(std::span<const double> state);
  mesh::BlockCsr<double> jacobian(std::span<const double> state);
  template <class OffT>
  mesh::SplitBlockCsr<OffT> jacobian_split(std::span<const double> state);
  double energy(std::span<const double> state);
  std::vector<double> gradient(std::span<const double> state);
  mesh::BlockCsr<double> hessian(std::span<const double> state,
                                 mesh::Symmetry symmetry = mesh::Symmetry::General);
  std::vector<double> hvp(std::span<const double> state, std::span<const double> direction);
  // Dense per-element Jacobians of one vector term (n_out x n_in each): cell-major
  // [e][r][c], or component-major [r][c][e].
  // sparse: only the entries of jit::jacobian_pattern(term's kernel), nnz per element.
  std::vector<double> element_jacobians(size_t term, std::span<const double> state,
                                        BlockOrder order = BlockOrder::CellMajor,
                                        bool sparse = false);
  std::vector<const cpu::CpuKernel*> kernels() const;  // built so far
  ElementResults element_results(size_t term, Mode mode, std::span<const double> state,
                                 std::span<const double> direction = {});

 private:
  using Local = ElementResults;
  // stores: how the kernel stores first derivatives (jit/driver.h FirstStores).
  Local run(size_t term, Mode mode, std::span<const double> state,
            std::span<const double> direction = {}, bool sparse = false,
            jit::FirstStores stores = jit::FirstStores::Direct);
  const cpu::CpuKernel& kernel_for(size_t term, Mode mode, bool sparse = false,
                                   jit::FirstStores stores = jit::FirstStores::Direct);
  // (k B) x (k B) element matrices of a term, row-major, for mesh::add_element_blocks.
  std::vector<double> jacobian_element_matrices(size_t term, const Local& local) const;
  std::vector<double> hessian_element_matrices(size_t term, const Local& local) const;

  Problem& p_;
  int width_, rows_;
  bool tape_columns_;
  TapeColumnsSettings tape_column_settings_;
  // Per term: its tape columns' launches, or null where the term's kernel has none.
  std::map<size_t, std::unique_ptr<HostTapeColumns>> tape_columns_of_;
  std::map<std::tuple<size_t, Mode, bool, jit::FirstStores>, std::unique_ptr<cpu::CpuKernel>>
      kernels_;
  // The tapes of kernels that keep them (jit/tape_pattern.h): written by the tape chunk before
  // the rows read them, so kept between runs rather than allocated and zeroed for each.
  std::vector<double> tape_;
};

}  // namespace dualjit::assembly
