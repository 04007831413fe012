// The CPU backend: the same element source the GPU runs, compiled by the host compiler
// (through the kernel cache) and run over elements with OpenMP.
#pragma once

#include <memory>

#include "backends/cpu/host_compiler.h"
#include "jit/kernel_cache.h"
#include "jit/launch_args.h"

namespace dualjit::cpu {

class CpuKernel {
 public:
  explicit CpuKernel(jit::LoweredKernel lowered, const HostCompileOptions& options = {},
                     jit::KernelCache& cache = jit::KernelCache::global());

  // Host pointers. Synchronous.
  void run(const jit::ArgValues& args) const;

  const jit::LoweredKernel& lowered() const { return lowered_; }
  bool compiled_now() const { return compiled_now_; }
  double compile_seconds() const { return compile_seconds_; }

 private:
  jit::LoweredKernel lowered_;
  std::shared_ptr<SharedObject> library_;
  void (*entry_)(const void*) = nullptr;
  bool compiled_now_ = false;
  double compile_seconds_ = 0;
};

jit::CacheKey host_cache_key(const jit::LoweredKernel& lowered, const HostCompileOptions& options);

}  // namespace dualjit::cpu
