// The ignition demo (`dualjit demo --problem ignition`): a batch of adiabatic constant-pressure
// reactors (ReactorOdes) of one mechanism, mixture and pressure, with initial temperatures
// spread evenly over a range, integrated at once by solvers::integrate_stiff to a common end
// time; per reactor the ignition delay tau (time of the largest dT/dt) and the final
// temperature. About 13 reactors spread over the range make a table, beside which Cantera's
// delays are put where a Python with Cantera runs cantera_ignition.py (next to this file);
// the sweep is written as ignition.csv and plotted as ignition.png (log tau against 1000 / T0).
// One reactor (T_lo == T_hi, reactors = 1) is a single case, as Cantera would compute it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "backends/assembly/assembler.h"
#include "examples/kinetics/units.h"

namespace dualjit::kinetics {

struct IgnitionDemoOptions {
  assembly::Backend backend = assembly::Backend::Auto;  // Auto: the GPU when usable
  std::string mechanism = "gri30.yaml";                 // FILE[:PHASE], as load_mechanism reads
  std::string composition = "CH4:1, O2:2, N2:7.52";     // mole fractions, as Cantera writes them
  double pressure = 10 * kOneAtm;                       // Pa
  // Reactors whose T0 are evenly spaced over [T_lo, T_hi] (K; one reactor: T_lo); 0: 100,000
  // on the GPU, 16 on the CPU.
  int64_t reactors = 0;
  double T_lo = 900, T_hi = 1500;
  double t_end = 10;  // s, every reactor; ignition must happen before it
  double rtol = 1e-6, atol = 1e-12;
  // The Python that runs cantera_ignition.py for the table's reactors; empty: Cantera is not
  // asked. One that cannot import cantera is reported and the demo goes on without it.
  std::string python;
  std::filesystem::path cantera_script;  // empty: the one shipped next to this file
  // Where ignition.csv and ignition.png go (created); empty: the working directory.
  std::filesystem::path output_dir;
  bool write_files = true;
};

// A reactor is "ignited" when its temperature rose by at least this much (K) by t_end.
inline constexpr double kIgnitionRise = 400.0;

struct IgnitionTableRow {
  int64_t reactor = 0;      // index into the report's per-reactor arrays
  double cantera_tau = -1;  // s; NaN where Cantera saw no ignition, -1 where it did not run
};

struct IgnitionDemoReport {
  std::string backend;  // "cuda" or "cpu"
  std::string summary;  // the mechanism, mixture, pressure and reactors, one line
  std::string mechanism_file, phase;
  int n_species = 0, n_reactions = 0;
  // Per reactor: initial temperature (K), ignition delay (s; NaN where there was no ignition
  // or the integration failed), temperature at t_end (K; the last state reached where it
  // failed), whether it failed (and why, the integrator's status name), accepted steps.
  std::vector<double> T0, tau, T_final;
  std::vector<std::string> status;
  std::vector<int> steps;
  std::vector<IgnitionTableRow> table;  // the reactors nearest to ~13 temperatures over the range
  // "Cantera 3.2.0 (python3)" when it ran, "Cantera not found (python3): plot without it"
  // ("...: no comparison" where no files are written), or empty when not asked.
  std::string cantera;
  bool cantera_ran = false;
  double cantera_seconds = 0;
  double largest_deviation = 0;  // |tau / Cantera's - 1| over the table's rows where both ignited
  // Wall-clock seconds: kernels compiled or loaded (a one-reactor warm-up), the batched
  // integration (timed apart, kernels ready).
  double kernel_seconds = 0, seconds = 0;
  int64_t kernels_compiled = 0, kernels_from_disk = 0;
  int64_t system_steps = 0;  // step attempts summed over reactors
  int rounds = 0;
  int64_t failed = 0, not_ignited = 0;
  std::string failures;  // the integrator's description of the first failures
  std::vector<std::pair<std::string, std::string>> facts;  // what was checked, as text
  std::vector<std::filesystem::path> files;                // written, in order
  // No reactor failed and, where Cantera ran, every table row's tau within 2 % of Cantera's
  // (both ignited, or neither).
  bool ok = false;
};

// Throws MechanismError for a mechanism that cannot be read, a composition naming a species the
// mechanism lacks (or otherwise malformed), a pressure, temperature range, end time or
// tolerance that is not finite and positive, a reversed range, or a negative reactor count.
IgnitionDemoReport run_ignition_demo(const IgnitionDemoOptions& options);

// The relative deviation allowed between a table row's tau and Cantera's.
inline constexpr double kCanteraTolerance = 0.02;

}  // namespace dualjit::kinetics
