// The vectors the line-search solvers iterate on, and the level-1 operations they apply to
// them, where the objective evaluates: host memory, or GPU memory for an objective on the CUDA
// backend, so that an iteration moves no vector between host and device (only scalars: dots,
// energies). The solvers make every vector through the objective's space.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backends/cuda/driver.h"

namespace dualjit::solvers {

// n doubles in host or device memory; move-only. A VectorSpace makes them.
class Vector {
 public:
  Vector() = default;
  explicit Vector(std::vector<double> host);
  Vector(cuda::DeviceBuffer device, int64_t n);

  int64_t size() const { return n_; }
  bool on_device() const { return device_.bytes() != 0; }
  // The first value's address, in host or device memory as on_device() says.
  double* data();
  const double* data() const;
  // The values in host memory; throws SolverError for a vector on the device.
  std::span<double> host();
  std::span<const double> host() const;

 private:
  std::vector<double> host_;
  cuda::DeviceBuffer device_;
  int64_t n_ = 0;
};

class VectorSpace {
 public:
  virtual ~VectorSpace() = default;
  virtual bool on_device() const = 0;
  // n zeros.
  virtual Vector zeros(int64_t n) const = 0;
  virtual Vector from_host(std::span<const double> values) const = 0;
  virtual std::vector<double> to_host(const Vector& v) const = 0;
  // y = x
  virtual void copy(const Vector& x, Vector& y) const = 0;
  // v_i = 0 where mask_i == 0, else unchanged (a NaN too): the pinned DOFs' entries.
  virtual void apply_mask(const Vector& mask, Vector& v) const = 0;
  // out[k] = a[k] . b[k] for every k: many dots in one pass over the vectors and one
  // synchronisation on a GPU (L-BFGS's inner products, all at once). Repeats on the same
  // machine are bit-identical.
  virtual std::vector<double> dots(std::span<const Vector* const> a,
                                   std::span<const Vector* const> b) const = 0;
  // y = c_y y + sum_k c[k] x[k]; c_y = 0 overwrites y (no terms: y = 0). An x[k] may be y.
  virtual void combine(std::span<const double> c, std::span<const Vector* const> x, double c_y,
                       Vector& y) const = 0;

  // y = a x + b y; b = 0 overwrites y (NaN included).
  void axpby(double a, const Vector& x, double b, Vector& y) const;
  // out = x + a d
  void add_scaled(const Vector& x, double a, const Vector& d, Vector& out) const;
  double dot(const Vector& a, const Vector& b) const;
  double norm(const Vector& v) const;
  void set_zero(Vector& v) const { combine({}, {}, 0.0, v); }
  Vector clone(const Vector& x) const;
};

// Host memory; loops in parallel (OpenMP) where the length pays for it.
const VectorSpace& host_space();

}  // namespace dualjit::solvers
