// Many adiabatic reactors (reactor_equations.h) as one stiff system for solvers::integrate_stiff:
// f and its exact Jacobian per cell from the reactor kernel (f from the rate laws'
// graph for values, the Jacobian from the one for derivatives: rate_laws.h RateLawForm), on the
// GPU or the CPU as the assembler options choose. All cells share the state's uniform (the
// pressure of constant-pressure reactors, the density of constant-volume ones), as in a low-Mach
// flow's thermodynamic pressure: cells at another pressure go in another batch. As the integrator
// packs the running cells, f and the Jacobians of m rows run over the first m cells of the
// whole batch on the GPU (the assembler's prefixes of elements); on the CPU over the smallest
// power-of-two fraction of the batch that holds them, one ReactorCells per such size, built
// on first use and kept (rows beyond m hold valid states).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "examples/kinetics/reactor_cells.h"
#include "solvers/stiff_system.h"

namespace dualjit::kinetics {

// The assembler options ReactorOdes starts from: AssemblerOptions' defaults, but the
// Jacobian's element kernels ask ptxas for one block per multiprocessor (LaunchLayout::
// min_blocks = 1). Left free, ptxas 13 held the reactor Jacobian's heaviest row-group launches
// to 168 registers and two of GRI-3.0's to 32, each spilling more than with the whole register
// file; the integrator's Jacobians, many on small batches of cells, were 6% faster with it on
// an H200. ReactorCells keeps ptxas free: at 1e6 cells the lower occupancy cost its Jacobian
// 3.6% (bench/RESULTS.md). The row groups make the Jacobians whatever element_tape_columns
// says: the right-hand side's rest Jacobian is dense (assembly::dense_rest).
assembly::AssemblerOptions reactor_odes_assembler_options();

struct ReactorOdesOptions {
  ReactorState state = ReactorState::constant_pressure;  // or constant_volume
  double pressure = kOneAtm;                             // Pa, constant pressure
  double density = 1.0;                                  // kg/m^3, constant volume
  // Backend, strategies, effort.
  assembly::AssemblerOptions assembler = reactor_odes_assembler_options();
  // The rate laws' forms (rate_laws.h) in the right-hand side's kernel and in the one the Jacobians
  // differentiate: each the cheaper for its use by default; the same, one kernel serves both.
  RateLawForm rhs_form = RateLawForm::values;
  RateLawForm jacobian_form = RateLawForm::derivatives;
};

class ReactorOdes final : public solvers::StiffSystem {
 public:
  // Throws MechanismError for a concentrations state or a pressure or density that is not
  // finite and positive.
  ReactorOdes(const Mechanism& mechanism, int64_t max_cells, ReactorOdesOptions options = {});

  int size() const override { return n_; }
  bool on_device() const override { return cells_.backend() == assembly::Backend::Cuda; }
  const double* rhs(int64_t m, const double* y) override;
  const double* jacobian(int64_t m, const double* y) override;

  // Refuses states (cells x (ns + 1): T, Y) that are not physical, naming the cell and the
  // quantity: T not finite and positive, a Y_k negative or not finite, sum Y off 1 by 1e-6.
  void check_states(std::span<const double> states) const;

  const Mechanism& mechanism() const { return mechanism_; }
  ReactorCells& cells() { return cells_; }  // the whole batch's

 private:
  struct Tier {
    ReactorCells* cells;
    std::vector<double> host_states;  // rows beyond m valid
  };
  // The CPU backend's tier that holds m rows, with y in its first m rows.
  Tier& stage(int64_t m, const double* y);

  const Mechanism& mechanism_;
  int n_;
  int64_t max_cells_;
  ReactorCells cells_;
  std::map<int64_t, std::unique_ptr<ReactorCells>> smaller_;  // by size
  std::map<int64_t, Tier> tiers_;
  std::vector<double> host_out_;
};

}  // namespace dualjit::kinetics
