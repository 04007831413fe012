// The array work of Rosenbrock steps on packed systems (stiff_integrator.h's rounds), one
// implementation per memory space: host_rosenbrock_engine.h (Eigen, OpenMP) and
// device_rosenbrock_engine.h (batched LU and stage kernels on the GPU). Rows 0..m-1 hold the
// systems being advanced; the step control stays with the caller, on the host.
#pragma once

#include <cstdint>
#include <span>

namespace dualjit::solvers {

// Wall-clock seconds per part of a step, summed.
struct RosenbrockTimes {
  double jacobian = 0, factor = 0, stages = 0;
};

class RosenbrockEngine {
 public:
  virtual ~RosenbrockEngine() = default;
  // The packed states (m = y.size() / n rows) from and to host memory.
  virtual void load(std::span<const double> y) = 0;
  virtual void store(std::span<double> y) = 0;
  // One attempted step of every packed row r with step h[r] > 0: err[r] is the weighted RMS
  // norm of the error estimate (inf when the step's matrix is singular, NaN when not finite);
  // with peak_component c >= 0, peak[r] = f(y_r)[c] at the step's start.
  virtual void attempt(std::span<const double> h, std::span<double> err,
                       std::span<double> peak) = 0;
  // Rows with accepted[r] != 0 take the attempted step's state.
  virtual void accept(std::span<const uint8_t> accepted) = 0;
  // Keeps rows keep[0], keep[1], ... (ascending) as the new rows 0, 1, ...
  virtual void compact(std::span<const int32_t> keep) = 0;
  virtual RosenbrockTimes times() const = 0;
};

}  // namespace dualjit::solvers
