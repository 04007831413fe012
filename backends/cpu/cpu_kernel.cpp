#include "backends/cpu/cpu_kernel.h"

#include <spdlog/spdlog.h>

#include <map>
#include <mutex>
#include <stdexcept>

namespace dualjit::cpu {
namespace {

// Loaded libraries by cache key: a second CpuKernel of the same code reuses the first load.
std::shared_ptr<SharedObject> loaded_library(const std::string& key, const jit::CacheEntry& entry,
                                             const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<SharedObject>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = loaded[key];
  if (!slot) slot = std::make_shared<SharedObject>(entry.payload, name);
  return slot;
}

}  // namespace

jit::CacheKey host_cache_key(const jit::LoweredKernel& lowered, const HostCompileOptions& options) {
  return jit::CacheKey{lowered.host_source_sha256(), host_compiler_identity(options),
                       options.canonical(), "host-x86_64", jit::kCodegenVersion};
}

CpuKernel::CpuKernel(jit::LoweredKernel lowered, const HostCompileOptions& options,
                     jit::KernelCache& cache)
    : lowered_(std::move(lowered)) {
  if (lowered_.host_source.empty()) {
    throw std::invalid_argument("kernel '" + lowered_.kernel_name + "' (" + lowered_.symbol +
                                "): its driver has no host form (CUDA only)");
  }
  const jit::CacheKey key = host_cache_key(lowered_, options);
  const auto entry = cache.get_or_build(key, [&] {
    const HostCompileResult r = host_compile(lowered_.symbol, lowered_.host_source, options);
    compiled_now_ = true;
    compile_seconds_ = r.compile_seconds;
    jit::CacheEntry e;
    e.payload = r.shared_object;
    e.metadata = {{"kernel", lowered_.kernel_name},
                  {"symbol", lowered_.symbol},
                  {"mode", std::string(mode_name(lowered_.plan.mode))},
                  {"width", std::to_string(lowered_.plan.width)},
                  {"arch", "host"},
                  {"compile_seconds", std::to_string(r.compile_seconds)}};
    spdlog::debug("dualjit: host-compiled {} in {:.3f} s", lowered_.symbol, r.compile_seconds);
    return e;
  });
  library_ = loaded_library(key.hex(), *entry, lowered_.symbol);
  entry_ = library_->function<void(const void*)>(lowered_.host_entry);
}

void CpuKernel::run(const jit::ArgValues& args) const {
  entry_(jit::pack_launch(lowered_, args).words.data());
}

}  // namespace dualjit::cpu
