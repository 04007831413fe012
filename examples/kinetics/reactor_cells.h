// Many independent reactor cells evaluated at once: the production rates kernel
// (rate_law_kernels.h) over an element set of single cells (k = 1), assembled by the one
// Assembler on the CPU or the GPU. The rates and the Jacobians come from three graphs of the
// same function by default, each the cheaper for its use (assembly::Term::value_kernel and
// columns_kernel): the rate laws' form for values for the rates, the one for derivatives for
// the sparse Jacobians (row groups; the dense ones too where the tape columns are off), the
// columns' for the dense ones (rate_laws.h). States and results are cell-major arrays:
//   states  n_cells x (ns + 1): T, then Y_k (or C_k, by the rate law's ReactorState)
//   rates   n_cells x (ns + 1): wdot_k (kmol/m^3/s), then the heat release rate (W/m^3)
//   jacobian n_cells blocks of (ns + 1) x (ns + 1), d rates / d state, cell-major
//            ([cell][row][column]), cell-major columns ([cell][column][row], each block
//            column-major, as cuBLAS's batched LU takes it) or component-major
//            ([row][column][cell])
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "backends/assembly/assembler.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "examples/kinetics/units.h"

namespace dualjit::kinetics {

struct ReactorCellsOptions {
  // The state; form: the rate laws' form in the kernel the Jacobians differentiate.
  RateLawOptions rate_law;
  // The rate laws' form in the kernel rates() evaluates. Different from rate_law.form: a second
  // kernel serves the rates; the same: one kernel serves both (for comparing the forms).
  RateLawForm rates_form = RateLawForm::values;
  // The rate laws' form in the kernel the tape columns differentiate (the dense Jacobians,
  // either order, assembly::Term::columns_kernel), when the assembler's element_tape_columns is
  // on. Different from rate_law.form: a third kernel; the same: rate_law.form's kernel.
  RateLawForm columns_form = RateLawForm::columns;
  // The state's uniform, the same for every cell: the pressure (Pa) of constant_pressure, the
  // density (kg/m^3) of constant_volume; concentrations take none.
  double pressure = kOneAtm;
  double density = 1.0;
  // Backend (CUDA, CPU, or auto: CUDA when a device is usable), dual width, strategies. The
  // defaults compile GRI-3.0 in seconds (rates 2 s, Jacobian 8-10 s on an H100's host). Runs
  // that evaluate millions of cells repay slower compiles: compile_effort = Full with
  // element_rows = 2 (the Jacobian in groups of two species rows, compiled as 16 launches in
  // parallel) made GRI-3.0 at 1e5 cells 5.4x (rates) and 2.5x (Jacobian) faster on an H100,
  // for 14 s and 21 s of cold compile (bench/RESULTS.md); the kernel cache keeps them for
  // later runs. n-hexane's sparse dw/dC needs row groups (element_rows = 80: 87 s cold).
  assembly::AssemblerOptions assembler;
};

class ReactorCells {
 public:
  // Builds the kernels (one per distinct form among the options' three); compiles each on first
  // use of its output (or loads it from the cache).
  ReactorCells(const Mechanism& mechanism, int64_t n_cells, ReactorCellsOptions options = {});
  // Another kernel of the same input and uniform (options.rate_law.state's, cell_state.h),
  // such as reactor_equations.h's; rates() then returns its output. The options' rate-law forms
  // are not used: it serves every output.
  ReactorCells(Kernel kernel, int64_t n_cells, ReactorCellsOptions options = {});
  // Two graphs of that function: rates() evaluates `rates_kernel`, the Jacobians differentiate
  // `kernel`. Throws assembly::ProblemError naming the slot where their slots differ.
  ReactorCells(Kernel kernel, Kernel rates_kernel, int64_t n_cells,
               ReactorCellsOptions options = {});

  int n_species() const { return block_size() - 1; }
  int block_size() const { return problem_->block_size(); }  // ns + 1
  int64_t n_cells() const { return problem_->n_nodes(); }
  // The kernel the Jacobians differentiate, and the one rates() evaluates (the same kernel
  // when there is one).
  const Kernel& kernel() const { return *kernel_; }
  const Kernel& rates_kernel() const { return rates_kernel_ ? *rates_kernel_ : *kernel_; }
  // The kernel the tape columns differentiate (the Jacobians' when there is no third).
  const Kernel& columns_kernel() const { return columns_kernel_ ? *columns_kernel_ : *kernel_; }
  assembly::Backend backend() const { return assembler_->backend(); }
  // The assembler, for device-memory calls (set_state, run_residual, run_element_blocks).
  assembly::Assembler& assembler() { return *assembler_; }
  // The kernels compiled or loaded so far (host or CUDA), for reports.
  std::vector<assembly::KernelInfo> kernels() const { return assembler_->kernels(); }

  // A new value of the state's uniform (pressure or density): the problem and its assembler
  // are rebuilt; the compiled kernels come back from the in-process cache.
  void set_pressure(double pressure);
  void set_density(double density);
  // The same kernels and options over another number of cells (its own problem and assembler;
  // the compiled kernels come back from the in-process cache).
  ReactorCells resized(int64_t n_cells) const;

  // Throws assembly::ProblemError when `states` is not n_cells x (ns + 1).
  std::vector<double> rates(std::span<const double> states);
  std::vector<double> jacobian(std::span<const double> states,
                               assembly::BlockOrder order = assembly::BlockOrder::CellMajor);
  // The Jacobian without its structural zeros: per cell the values of jacobian_pattern() in
  // its CSR order (rows wdot_k then q, columns T then the state's species), cell- or
  // component-major. The pattern follows the stoichiometry and third-body efficiencies (in the
  // (T, C) form dwdot/dC is sparse; in (T, Y) the density couples every species).
  std::vector<double> sparse_jacobian(std::span<const double> states,
                                      assembly::BlockOrder order = assembly::BlockOrder::CellMajor);
  jit::JacobianPattern jacobian_pattern() const { return assembler_->element_pattern(0); }

 private:
  ReactorCells(std::shared_ptr<const Kernel> kernel, std::shared_ptr<const Kernel> rates_kernel,
               std::shared_ptr<const Kernel> columns_kernel, int64_t n_cells,
               ReactorCellsOptions options);
  void rebuild();

  std::shared_ptr<const Kernel> kernel_;
  std::shared_ptr<const Kernel> rates_kernel_;    // null: kernel_ serves the rates too
  std::shared_ptr<const Kernel> columns_kernel_;  // null: kernel_ serves the tape columns too
  int64_t n_cells_;
  ReactorCellsOptions options_;
  std::unique_ptr<assembly::Problem> problem_;
  std::unique_ptr<assembly::Assembler> assembler_;
};

}  // namespace dualjit::kinetics
