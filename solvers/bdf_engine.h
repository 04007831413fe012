// The array work of BDF steps on packed systems (bdf_integration.h's rounds), one
// implementation per memory space: host_bdf_engine.h (Eigen, OpenMP) and device_bdf_engine.h
// (batched kernels on the GPU). Rows 0..m-1 hold the systems being advanced, each with its
// differences D_0..D_7 (bdf_coefficients.h), its Jacobian and its LU; the step control stays
// with the caller, on the host.
#pragma once

#include <cstdint>
#include <span>

namespace dualjit::solvers {

// Wall-clock seconds per part, summed, and the rows of f evaluated. Of the stages: rhs, the f
// evaluations of the Newton iterations, and newton, the iterations' solves and updates (the
// rest is the prediction, the error norms and the transfers); device time on the GPU.
// newton_sweeps: the batched Newton iterations (a kernel launch each on the GPU);
// newton_rows: the rows still iterating at each, summed (on the GPU the first of an attempt
// counts every packed row).
struct BdfTimes {
  double jacobian = 0, factor = 0, stages = 0, rhs = 0, newton = 0;
  int64_t rhs_rows = 0, newton_sweeps = 0, newton_rows = 0;
};

// One attempt of every packed row r.
struct BdfAttempt {
  std::span<const int8_t> order;      // q, 1..5
  std::span<const double> c;          // h / alpha_q
  std::span<const double> rescale;    // D_0..D_q scaled to a step this times the last; 1: none
  std::span<const int32_t> refresh;   // rows whose Jacobian is evaluated anew at the prediction
  std::span<const int32_t> refactor;  // rows whose I - c J is factored anew (refresh included)
};

// Per row: converged = 1 when the Newton iteration converged (0: it did not, 2: f or the
// correction was not finite, 3: the LU is singular); iterations taken; the error norms of the
// order q, q - 1 and q + 1 estimates (weighted RMS, scale atol + rtol |y_new|) when converged;
// peak = f(y)[peak_component] at the last iterate.
struct BdfOutcome {
  std::span<uint8_t> converged;
  std::span<int8_t> iterations;
  std::span<double> err, err_lower, err_higher, peak;
};

class BdfEngine {
 public:
  virtual ~BdfEngine() = default;
  // Loads the packed states (m = y.size() / n rows), D_1 = h f(y), and every row's Jacobian.
  virtual void start(std::span<const double> y, std::span<const double> h) = 0;
  virtual void store(std::span<double> y) = 0;  // D_0 of each row
  virtual void attempt(const BdfAttempt& a, const BdfOutcome& out) = 0;
  // Rows with accepted[r] != 0 take the attempt's solution: their differences are updated.
  virtual void accept(std::span<const uint8_t> accepted) = 0;
  // Keeps rows keep[0], keep[1], ... (ascending) as the new rows 0, 1, ...
  virtual void compact(std::span<const int32_t> keep) = 0;
  virtual BdfTimes times() const = 0;
};

}  // namespace dualjit::solvers
