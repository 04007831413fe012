// The solvers' vectors in GPU memory (vector_space.h): level-1 kernels of one NVRTC module,
// launched on the legacy stream (ordered with the Assembler's default runs), dots summed in a
// fixed order (per-block trees, then one block over the partials), so that repeats are
// bit-identical. A batch of dots reads its doubles back to the host: that synchronisation, a
// few microseconds, is what an operation costs beyond its kernel, against a vector's transfer
// for host vectors.
#pragma once

#include <memory>
#include <string>

#include "backends/cuda/driver.h"
#include "backends/cuda/source_module.h"
#include "solvers/vector_space.h"

namespace dualjit::solvers {

// The module's CUDA source (for compiling without a GPU and cache warming).
std::string device_vector_space_source();

class DeviceSpace final : public VectorSpace {
 public:
  // Compiles (or loads from the kernel cache) the module for the current device.
  DeviceSpace();
  ~DeviceSpace() override;

  bool on_device() const override { return true; }
  Vector zeros(int64_t n) const override;
  Vector from_host(std::span<const double> values) const override;
  std::vector<double> to_host(const Vector& v) const override;
  void copy(const Vector& x, Vector& y) const override;
  void apply_mask(const Vector& mask, Vector& v) const override;
  std::vector<double> dots(std::span<const Vector* const> a,
                           std::span<const Vector* const> b) const override;
  void combine(std::span<const double> c, std::span<const Vector* const> x, double c_y,
               Vector& y) const override;

 private:
  std::unique_ptr<cuda::SourceModule> module_;
  mutable cuda::DeviceBuffer partial_, result_;
  cuda::DeviceBuffer done_;  // blocks of a dots launch finished; zero between launches
};

}  // namespace dualjit::solvers
