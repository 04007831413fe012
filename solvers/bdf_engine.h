// The array work of BDF steps on packed systems (bdf_integration.h's rounds), one
// implementation per memory space: host_bdf_engine.h (Eigen, OpenMP) and device_bdf_engine.h
// (batched kernels on the GPU). Rows 0..m-1 hold the systems being advanced, each with its
// differences D_0..D_7 (bdf_coefficients.h), its Jacobian, its LU and its step control
// (bdf_step_control.nvrtc.h), which runs where the rows are.
#pragma once

#include <cstdint>
#include <span>

#include "solvers/bdf_step_control.nvrtc.h"

namespace dualjit::solvers {

// Wall-clock seconds per part, summed, and the rows of f evaluated. control: the step
// control's plans and conclusions (on the GPU: the plans with the transfer of their counts, and
// the launch of the conclusions, which run with the stages' difference update). Of the stages:
// rhs, the f evaluations of the Newton iterations, and newton, the iterations' solves and
// updates (the rest is the prediction, the error norms and the difference update); device time
// on the GPU.
// newton_sweeps: the batched Newton iterations (a kernel launch each on the GPU);
// newton_rows: the rows still iterating at each, summed (on the GPU the first of an attempt
// counts every packed row).
struct BdfTimes {
  double jacobian = 0, factor = 0, stages = 0, rhs = 0, newton = 0, control = 0;
  int64_t rhs_rows = 0, newton_sweeps = 0, newton_rows = 0;
};

// A round's plan: the rows whose Jacobian is evaluated anew (at the prediction) and whose
// I - c J is factored anew (refreshed ones included).
struct BdfRound {
  int64_t refreshed = 0, refactored = 0;
};

class BdfEngine {
 public:
  virtual ~BdfEngine() = default;
  // Loads the packed states (m = y.size() / n rows) and their controls, D_1 = h f(y), and
  // every row's Jacobian.
  virtual void start(std::span<const double> y, std::span<const bdf::StepControl> control) = 0;
  // Plans every row's next attempt (bdf::plan_step).
  virtual BdfRound plan() = 0;
  // Attempts the plan, concludes each row's step (bdf::conclude_step) and updates the
  // differences of the accepted ones; returns the rows still running.
  virtual int64_t attempt() = 0;
  // Whether each row's system is still running (its control's `running`) after the last
  // attempt; asked between an attempt and the next compact.
  virtual void running(std::span<uint8_t> running) = 0;
  // D_0 and the control of rows[0], rows[1], ...
  virtual void store(std::span<const int32_t> rows, std::span<double> y,
                     std::span<bdf::StepControl> control) = 0;
  // Keeps rows keep[0], keep[1], ... (ascending) as the new rows 0, 1, ...
  virtual void compact(std::span<const int32_t> keep) = 0;
  virtual BdfTimes times() const = 0;
};

}  // namespace dualjit::solvers
