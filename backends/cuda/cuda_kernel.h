// The CUDA backend for one lowered kernel: NVRTC image from the kernel cache (for the
// device's own architecture), module loaded once per process, launched as the kernel's
// LaunchPolicy says (jit/driver.h); it knows no driver or strategy.
#pragma once

#include <memory>

#include "backends/cuda/driver.h"
#include "jit/cuda_image.h"
#include "jit/launch_args.h"

namespace dualjit::cuda {

class CudaKernel {
 public:
  // Compiles with jit::default_compile_options for the current device.
  explicit CudaKernel(jit::LoweredKernel lowered,
                      jit::KernelCache& cache = jit::KernelCache::global());
  // options.arch empty: the current device's architecture.
  CudaKernel(jit::LoweredKernel lowered, jit::CompileOptions options,
             jit::KernelCache& cache = jit::KernelCache::global());
  // From an image already built for `options` (jit::cuda_images compiles a split kernel's
  // launches in parallel): no second cache lookup, and compiled_now() says what the build did.
  CudaKernel(jit::LoweredKernel lowered, const jit::CompileOptions& options, jit::CudaImage image);

  // Device pointers. Asynchronous on `stream`.
  void launch(const jit::ArgValues& args, CUstream stream = nullptr) const {
    launch(jit::pack_launch(lowered_, args), stream);
  }
  // A block packed by jit::pack_launch for this kernel, kept by a caller that repeats a launch.
  void launch(const jit::PackedLaunch& packed, CUstream stream = nullptr) const;

  const jit::LoweredKernel& lowered() const { return lowered_; }
  const jit::CudaImage& image() const { return image_; }
  FunctionAttributes attributes() const;
  bool compiled_now() const { return image_.compiled_now; }

 private:
  void load(const jit::CompileOptions& options, jit::KernelCache& cache);
  void load_image(const jit::CompileOptions& options);

  jit::LoweredKernel lowered_;
  jit::CudaImage image_;
  std::shared_ptr<Module> module_;
  CUfunction function_ = nullptr;
};

}  // namespace dualjit::cuda
