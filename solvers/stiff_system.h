// A batch of independent autonomous ODE systems y' = f(y), n unknowns each, as the stiff
// integrator (stiff_integrator.h) sees it: f and its Jacobian at many packed states at once,
// in host memory or, for a system on the GPU, in device memory (CUdeviceptr values as
// pointers). The integrator packs the systems still running into the first m rows, so a
// system evaluates any m up to the batch it was built for.
#pragma once

#include <cstdint>

namespace dualjit::solvers {

class StiffSystem {
 public:
  virtual ~StiffSystem() = default;
  virtual int size() const = 0;        // n
  virtual bool on_device() const = 0;  // pointers are device pointers
  // f at the m states y (m x n, row per system); the result (m x n) stays valid until the
  // next call on this system.
  virtual const double* rhs(int64_t m, const double* y) = 0;
  // df/dy at the m states y: m blocks of n x n, row-major ([system][row][column]); valid until
  // the next call on this system.
  virtual const double* jacobian(int64_t m, const double* y) = 0;
};

}  // namespace dualjit::solvers
