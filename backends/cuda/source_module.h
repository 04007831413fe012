// A fixed CUDA translation unit (library kernels written by hand, not generated from a graph),
// compiled by NVRTC through the kernel cache and loaded once per process and context.
#pragma once

#include <memory>
#include <string>

#include "backends/cuda/driver.h"
#include "jit/kernel_cache.h"
#include "jit/nvrtc_compiler.h"

namespace dualjit::cuda {

// Key of `source` compiled with `options`: the source digest, NVRTC's identity, every option, the
// target architecture and a format version of these modules.
jit::CacheKey source_cache_key(const std::string& source, const jit::CompileOptions& options);

// The NVRTC image (CUBIN, or PTX as fallback) of `source` from `cache`, compiled on a miss.
// Needs no GPU: options.arch must name the target. Throws jit::CompileError with the log.
std::shared_ptr<const jit::CacheEntry> source_image(
    const std::string& name, const std::string& source, const jit::CompileOptions& options,
    jit::KernelCache& cache = jit::KernelCache::global());

class SourceModule {
 public:
  // Compiles for the current device's architecture (Context::primary()), with `options`
  // otherwise (their arch is replaced).
  SourceModule(std::string name, const std::string& source, jit::CompileOptions options = {},
               jit::KernelCache& cache = jit::KernelCache::global());

  // Throws CudaError naming the module and the entry point.
  CUfunction function(const std::string& entry) const { return module_->function(entry); }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::shared_ptr<Module> module_;
};

}  // namespace dualjit::cuda
