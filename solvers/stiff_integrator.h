// Many independent stiff systems (stiff_system.h) advanced at once with the exact Jacobian:
// each system has its own initial state, end time, step size (and order); every round attempts
// one step of each system still running. Two methods (StiffMethod):
//  - bdf: variable-order (1-5), quasi-constant-step BDF in difference form (Shampine and
//    Reichelt's NDF, as ode15s and SciPy's BDF), a modified Newton iteration whose Jacobian is
//    kept across steps until the iteration fails to converge and whose LU is refreshed when the
//    step or order changes (bdf_integration.h). Per step: one to four f evaluations and solves;
//    Jacobians and factorizations only for the systems that need them.
//  - rodas4: the Rosenbrock method RODAS4 (rosenbrock_method.h): one Jacobian, one LU and six
//    stages per attempt, fewer steps; no Jacobian reuse.
// The array work runs where the system lives (batched LU kernels on the GPU, Eigen on the
// CPU); the per-system step control runs on the host on a few norms per system. Systems that
// finish stop costing: the running ones are packed to the front. A system that fails
// (non-finite state, step size underflow, too many steps) is reported with its index and
// reason while the others finish.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "solvers/stiff_system.h"

namespace dualjit::solvers {

enum class StiffMethod { bdf, rodas4 };

struct StiffOptions {
  StiffMethod method = StiffMethod::bdf;
  // Error per component (weighted RMS over the system): |e_i| / (atol + rtol max(|y_i|,
  // |y_new,i|)) <= 1. The defaults are Cantera's ReactorNet's.
  double rtol = 1e-9;
  double atol = 1e-15;
  // First step of each system: this when > 0, else 1e-6 of its time span.
  double initial_step = 0;
  double max_step = std::numeric_limits<double>::infinity();
  int max_steps = 100000;  // attempts per system, accepted or not
  // Track the time at which f's component peak_component peaks (ignition delay: dT/dt); -1:
  // off. Sampled at the start of every accepted step and refined by the parabola through the
  // largest sample and its neighbours.
  int peak_component = -1;
};

enum class StiffStatus { done, non_finite, step_underflow, too_many_steps };
std::string_view stiff_status_name(StiffStatus status);  // "done", "non-finite state", ...

struct StiffReport {
  std::vector<StiffStatus> status;  // per system
  std::vector<double> t;            // the time each system reached (its end time when done)
  std::vector<int> steps, rejected;
  std::vector<double> peak_time, peak_value;  // with peak_component; else empty
  int rounds = 0;                             // batched attempts
  // Summed over systems: attempts, Jacobian evaluations, LU factorizations, f evaluations.
  int64_t system_steps = 0, system_jacobians = 0, system_factorizations = 0, system_rhs = 0;
  // Wall-clock seconds of each part, summed over rounds: stages are the f evaluations and
  // solves (a Rosenbrock method's stages, the BDF's Newton iterations and its prediction and
  // error norms).
  double seconds = 0, jacobian_seconds = 0, factor_seconds = 0, stage_seconds = 0,
         control_seconds = 0;
  // BDF: of stage_seconds, the Newton iterations' f evaluations and their solves and updates;
  // the batched Newton iterations and the rows they iterated (solvers/bdf_engine.h BdfTimes).
  // 0 for the Rosenbrock method.
  double rhs_seconds = 0, newton_seconds = 0;
  int64_t newton_sweeps = 0, newton_rows = 0;

  int64_t failed() const;
  // "system 17: step size underflow at t = 3.2e-4 (h = 1e-19)" for the first `limit` failures.
  std::string failures(int limit = 5) const;
};

// Advances y (n_systems x n, host memory, row per system) from t = 0 to t_end (one per system,
// >= 0) in place. Throws SolverError when the sizes disagree or an end time is negative or not
// finite; failures of single systems are in the report, their rows left at their last accepted
// state.
StiffReport integrate_stiff(StiffSystem& system, std::span<double> y, std::span<const double> t_end,
                            const StiffOptions& options = {});

}  // namespace dualjit::solvers
