#include "backends/cuda/cuda_kernel.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

namespace dualjit::cuda {
namespace {

// Loaded modules by cache key and context: the in-process level of the cache.
std::shared_ptr<Module> loaded_module(const std::string& key, const jit::CacheEntry& entry,
                                      const std::string& name) {
  static std::mutex mu;
  static std::map<std::pair<std::string, CUcontext>, std::shared_ptr<Module>> loaded;
  const CUcontext ctx = Context::primary().handle();
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = loaded[{key, ctx}];
  if (!slot) slot = std::make_shared<Module>(entry.payload, name);
  return slot;
}

}  // namespace

CudaKernel::CudaKernel(jit::LoweredKernel lowered, jit::KernelCache& cache)
    : lowered_(std::move(lowered)) {
  load(jit::default_compile_options(lowered_, Context::primary().device().arch()), cache);
}

CudaKernel::CudaKernel(jit::LoweredKernel lowered, jit::CompileOptions options,
                       jit::KernelCache& cache)
    : lowered_(std::move(lowered)) {
  if (options.arch.empty()) options.arch = Context::primary().device().arch();
  load(options, cache);
}

CudaKernel::CudaKernel(jit::LoweredKernel lowered, const jit::CompileOptions& options,
                       jit::CudaImage image)
    : lowered_(std::move(lowered)), image_(std::move(image)) {
  if (!image_.entry) throw std::invalid_argument(lowered_.label + ": CudaKernel without an image");
  load_image(options);
}

void CudaKernel::load(const jit::CompileOptions& options, jit::KernelCache& cache) {
  image_ = jit::cuda_image(lowered_, options, cache);
  load_image(options);
}

void CudaKernel::load_image(const jit::CompileOptions& options) {
  module_ =
      loaded_module(jit::cuda_cache_key(lowered_, options).hex(), *image_.entry, lowered_.symbol);
  function_ = module_->function(lowered_.cuda_entry);
  if (lowered_.launch.dynamic_shared_bytes > 48 * 1024)
    set_max_dynamic_shared(function_, static_cast<int>(lowered_.launch.dynamic_shared_bytes));
  if (image_.ptxas.registers < 0 && image_.is_cubin) {
    // NVRTC (12.9+) serves repeated compiles from the driver's JIT cache without running
    // ptxas, so no resource report came back: take registers and local memory from the driver.
    const FunctionAttributes attr = ::dualjit::cuda::attributes(function_);
    image_.ptxas.registers = attr.registers;
    image_.ptxas.stack_bytes = attr.local_bytes;
  }
}

void CudaKernel::launch(const jit::PackedLaunch& packed, CUstream stream) const {
  const jit::LaunchPolicy& policy = lowered_.launch;
  const int64_t items = packed.items;
  if (items == 0) return;
  void* params[] = {const_cast<uint64_t*>(packed.words.data())};
  const int64_t blocks = (items + policy.items_per_block - 1) / policy.items_per_block *
                         std::max(policy.blocks_per_item_block, 1);
  if (blocks > 0x7fffffff) {
    throw std::invalid_argument("kernel '" + lowered_.kernel_name + "': " + std::to_string(items) +
                                " " + policy.items + " exceed one grid");
  }
  int64_t grid = blocks;
  if (policy.blocks_per_sm > 0) {
    grid = std::min<int64_t>(
        grid, int64_t(policy.blocks_per_sm) * Context::primary().device().multiprocessors);
  }
  ::dualjit::cuda::launch(function_, Dim3{static_cast<unsigned>(grid)},
                          Dim3{static_cast<unsigned>(policy.block_threads)},
                          static_cast<unsigned>(policy.dynamic_shared_bytes), params, stream);
}

FunctionAttributes CudaKernel::attributes() const {
  return ::dualjit::cuda::attributes(function_);
}

}  // namespace dualjit::cuda
