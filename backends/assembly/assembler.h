// The one way to assemble a Problem (problem.h): built from the problem and options (backend,
// strategy and its configuration), it produces everything a solver consumes, on the GPU or the
// CPU (the off-diagonal precision of a split Jacobian is the call's type parameter):
//   vector terms:  residual; Jacobian, FUN3D split (Adiag fp64, Aoff fp32 or fp64) or general
//                  block CSR; dense per-element Jacobians (cell- or component-major)
//   energy terms:  energy, gradient, Hessian (general or upper block CSR), the three at once
//                  (a Newton step's), Hessian-vector product without forming the Hessian
// Host calls take and return host memory and are synchronous. On the CUDA backend the device
// calls read the state from device memory and leave results there, enqueued on a stream the
// caller gives.
//
// How each output is computed is a strategy: the residual and the split Jacobian by one of the
// FUN3D family (strategies/strategies.h; staged-scatter by default on the GPU); the gradient,
// H v, Hessian and general Jacobian by an element strategy (element_rules.h: node-gather, one
// pass per node over its elements, by default for vectors; staged-node-gather, the same with
// each GPU block's rows summed in shared memory, by default for matrices; element-scatter,
// atomics in one pass; element-gather, element-local results summed in a fixed order; all
// but element-scatter bit-identical from run to run); the energy and element blocks by
// element-local results (device_element_assembly.h on the GPU, host_element_assembly.h on the CPU).
// Kernels are compiled (or loaded from the cache) on first use of an output, and structure
// (patterns, incidences, uploads) is built once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <cuda.h>

#include "backends/assembly/device_element_assembly.h"
#include "backends/assembly/fused_assembly.h"
#include "backends/assembly/problem.h"
#include "backends/mesh/block_csr.h"
#include "jit/jacobian_pattern.h"

namespace dualjit::assembly {

enum class Backend { Auto, Cuda, Cpu };
std::string_view backend_name(Backend b);  // "auto", "cuda", "cpu"
// Auto is CUDA when a driver and a device are usable, else the CPU.
Backend resolve_backend(Backend b);

struct AssemblerOptions {
  Backend backend = Backend::Auto;
  // The residual and split Jacobian of the vector terms: strategy and configuration
  // (FusedOptions::jacobian is set per call). On the CPU a CUDA-only strategy runs its host
  // form. The tuner's choice for a problem comes from tuning::choose_fused_options.
  FusedOptions fused;
  // The element kernels of the other outputs: dual width (0: all directions in one chunk) and,
  // on the GPU, layout.
  int element_width = 0;
  jit::LaunchLayout element_layout;
  // Outputs per row group of the element kernels' general Jacobian (jit/derivative_plan.h):
  // 0 computes every row in every chunk; a few rows per chunk keep a big kernel's chunks
  // (a rate law's 54 rows) small enough for registers, at the price of recomputing what the
  // groups share.
  int element_rows = 0;
  // NVRTC effort for the kernels of big graphs (jit/lowering.h: Auto compiles them fast, Full
  // optimises them): the fused kernels' (it overrides fused.compile_effort) and the element
  // kernels' general Jacobian.
  jit::CompileEffort compile_effort = jit::CompileEffort::Auto;
  // Launches of the element kernels in row groups (jit/lowering.h lower_launches): 0 splits
  // big ones into launches that compile in parallel on the GPU backend, 1 keeps each whole.
  int element_launches = 0;
  // Dense element blocks, any order, of a term whose kernel keeps tapes and whose outputs are
  // all linear in them (a mechanism's) by the tape columns' launches, which read each tape slot
  // once per element (backends/assembly/device_tape_columns.h, host_tape_columns.h), instead
  // of the row groups: GRI-3.0's at 1e5 cells on an H200 (from the term's columns_kernel)
  // component-major in 3.0 ms against the row groups' 4.2, cell-major in 3.15 (column-major
  // blocks) and 3.9 (row-major) against 4.5, compiled in 8 s against 15-22
  // (bench/RESULTS.md). The entries equal the row groups' to rounding, not bit for bit. Other
  // kernels keep the row groups, and so do kernels whose outputs' factors make the rest
  // Jacobian dense (tape_columns_launches.h dense_rest).
  bool element_tape_columns = true;
  // Their column groups and launches (TapeColumnsSettings; layout and effort are
  // element_layout and compile_effort).
  TapeColumnsSettings element_tape_column_settings;
  // How the element terms' node vectors (gradient, H v) and block matrices (Hessian, general
  // Jacobian) are summed (element_rules.h). The defaults are the fastest for each kind on the
  // spring grid on an H100 (bench/RESULTS.md), and both give bit-identical repeats. The
  // tuner's choice per mode: tuning/element_assembly_config.h.
  ElementStrategy vector_strategy = ElementStrategy::NodeGather;
  ElementStrategy matrix_strategy = ElementStrategy::StagedNodeGather;
  // The Hessian with each element's local Hessian made positive definite first (eigenvalues
  // clamped to epsilon, or their absolute values), inside the assembly kernel: what Newton's
  // method needs on a non-convex energy. H v and the gradient are not affected. Needs an
  // in-place matrix_strategy (the constructor throws for element-gather).
  jit::HessianProjection hessian_projection;
  ElementStrategy element_strategy(Mode mode) const {
    return mode_is_matrix(mode) ? matrix_strategy : vector_strategy;
  }
};

// The lowering options of the element kernel an assembler under `o` runs for term `term` in
// `mode` (Value: an energy term's energy; Gradient, Hvp, Hessian: energy terms; Jacobian:
// vector terms' general Jacobian), for emitting and cache warming.
jit::LoweringOptions element_kernel_lowering(Problem& p, size_t term, Mode mode,
                                             const AssemblerOptions& o);

// The FUN3D split Jacobian on the device: Adiag (n_nodes blocks, fp64, node-major, each row-
// major) and Aoff's values over the problem's off-diagonal pattern (fp32 or fp64), with the
// pattern's BSR index arrays (int32, on the device). Aoff is stored by rows (block b of the
// pattern at off + b B^2) or, in edge-based storage (OffOrder::elements), element by element,
// block b of the pattern at off + off_storage[b] B^2.
template <class OffT>
struct DeviceSplitJacobian {
  const double* residual = nullptr;  // n_nodes x B
  // Writable, as DeviceBsr::values: a solver adds its pseudo-time shift here in place.
  double* diag = nullptr;
  const OffT* off = nullptr;
  const int32_t* off_row_ptr = nullptr;  // n_nodes + 1
  const int32_t* off_col_idx = nullptr;  // n_off_blocks
  const int32_t* off_storage = nullptr;  // n_off_blocks; null when Aoff is stored by rows
  int64_t n_off_blocks = 0;
  int block_dim = 0;
};

// Energy, gradient and Hessian at one state: what a Newton step needs, in one pass where the
// matrix strategy allows (Assembler::energy_gradient_hessian).
struct EnergyGradientHessian {
  double energy = 0;
  std::vector<double> gradient;
  mesh::BlockCsr<double> hessian;
};
struct DeviceEnergyGradientHessian {
  const double* energy = nullptr;    // one double
  const double* gradient = nullptr;  // n_nodes x B
  DeviceBsr hessian;
};

// A kernel an assembler has built, for reports.
struct KernelInfo {
  std::string symbol;
  int registers = -1, spill_bytes = -1;  // CUDA; -1 on the CPU
  bool compiled_now = false;             // compiled rather than loaded from the cache
  int flops = 0;                         // per element (jit/op_counts.h)
};

class Assembler {
 public:
  // `problem` must outlive the assembler; terms added afterwards are refused (runs throw).
  explicit Assembler(Problem& problem, AssemblerOptions options = {});
  ~Assembler();
  Assembler(const Assembler&) = delete;
  Assembler& operator=(const Assembler&) = delete;

  Backend backend() const { return backend_; }
  Problem& problem() const { return problem_; }
  const AssemblerOptions& options() const { return options_; }
  // Every kernel built so far (the fused ones, then the element kernels).
  std::vector<KernelInfo> kernels() const;

  // --- Host memory, synchronous ---------------------------------------------------------------
  std::vector<double> residual(std::span<const double> state);
  // FUN3D split Jacobian; the residual of the same state too, when asked for (same kernels).
  // Aoff comes by rows; `order` picks the storage the kernels write (elements: permuted).
  template <class OffT>
  mesh::SplitBlockCsr<OffT> jacobian_split(std::span<const double> state,
                                           std::vector<double>* residual = nullptr,
                                           OffOrder order = OffOrder::rows);
  mesh::BlockCsr<double> jacobian(std::span<const double> state);  // general, diagonal inside
  double energy(std::span<const double> state);
  std::vector<double> gradient(std::span<const double> state);
  mesh::BlockCsr<double> hessian(std::span<const double> state,
                                 mesh::Symmetry symmetry = mesh::Symmetry::General);
  std::vector<double> hvp(std::span<const double> state, std::span<const double> direction);
  // The three at once. Under node-gather or staged-node-gather (the default) the Hessian's
  // kernels sum the gradient and energy from the element results they already have: one pass,
  // each element evaluated as the Hessian alone evaluates it; under the other strategies, the
  // three calls. The energy agrees with energy() to round-off (its order of additions differs).
  EnergyGradientHessian energy_gradient_hessian(std::span<const double> state,
                                                mesh::Symmetry symmetry = mesh::Symmetry::General);
  // Dense Jacobian of each element of one vector term (n_out x n_in): [e][r][c] cell-major,
  // [e][c][r] cell-major columns, [r][c][e] component-major (problem.h BlockOrder).
  std::vector<double> element_blocks(size_t term, std::span<const double> state,
                                     BlockOrder order = BlockOrder::CellMajor);
  // The same with only the entries that are not structural zeros (a rate law's dw/dC): per
  // element the nnz values of element_pattern(term), in its CSR order; [e][k] cell-major,
  // [k][e] component-major (CellMajorColumns throws ProblemError).
  std::vector<double> element_sparse_blocks(size_t term, std::span<const double> state,
                                            BlockOrder order = BlockOrder::CellMajor);
  // CSR over the term's n_out x n_in, from its kernel's graph (jit/jacobian_pattern.h).
  jit::JacobianPattern element_pattern(size_t term) const;

  // --- Device memory (CUDA backend; throws ProblemError naming the call on the CPU) ----------
  // Inputs: n_nodes x B doubles, uploaded here or written directly through the pointers.
  void set_state(std::span<const double> state);
  void set_direction(std::span<const double> direction);
  double* state_device();
  double* direction_device();
  // Each enqueues on `stream` and returns device pointers valid until the next run of the same
  // output; synchronize the stream before reading them.
  // elements >= 0: the first `elements` elements of each vector term only, and only the rows
  // up to the last node they touch (DeviceFusedAssembly::run).
  const double* run_residual(CUstream stream = nullptr, int64_t elements = -1);
  template <class OffT>
  DeviceSplitJacobian<OffT> run_jacobian_split(CUstream stream = nullptr,
                                               OffOrder order = OffOrder::rows);
  const double* run_energy(CUstream stream = nullptr);  // one double
  const double* run_gradient(CUstream stream = nullptr);
  const double* run_hvp(CUstream stream = nullptr);
  // Hessian or general Jacobian values over the pattern's BSR (device_element_assembly.h).
  DeviceBsr run_hessian(mesh::Symmetry symmetry = mesh::Symmetry::General,
                        CUstream stream = nullptr);
  DeviceBsr run_jacobian(CUstream stream = nullptr);
  DeviceEnergyGradientHessian run_energy_gradient_hessian(
      mesh::Symmetry symmetry = mesh::Symmetry::General, CUstream stream = nullptr);
  // elements >= 0: only the first `elements` elements of the term's set (a batch of cells
  // that shrinks without a new Assembler), their blocks first.
  const double* run_element_blocks(size_t term, BlockOrder order = BlockOrder::CellMajor,
                                   CUstream stream = nullptr, int64_t elements = -1);
  const double* run_element_sparse_blocks(size_t term, BlockOrder order = BlockOrder::CellMajor,
                                          CUstream stream = nullptr);

 private:
  struct Cuda;
  struct Cpu;
  Cuda& cuda(const char* call);
  std::vector<double> element_jacobians(size_t term, std::span<const double> state,
                                        BlockOrder order, bool sparse, const char* call);
  Cpu& cpu();
  void check_terms(const char* call) const;

  Problem& problem_;
  AssemblerOptions options_;
  Backend backend_;
  size_t n_terms_;
  std::unique_ptr<Cuda> cuda_;
  std::unique_ptr<Cpu> cpu_;
  mutable std::map<size_t, jit::JacobianPattern> patterns_;  // element_pattern, per term
};

}  // namespace dualjit::assembly
