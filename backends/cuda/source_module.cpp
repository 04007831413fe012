#include "backends/cuda/source_module.h"

#include <spdlog/spdlog.h>

#include <map>
#include <mutex>

#include "dsl/sha256.h"

namespace dualjit::cuda {
namespace {

// Bumped when the way these modules are built changes: part of every key.
constexpr const char* kSourceModuleVersion = "dualjit-source-module-1";

}  // namespace

jit::CacheKey source_cache_key(const std::string& source, const jit::CompileOptions& options) {
  return jit::CacheKey{sha256_hex(source), jit::nvrtc_identity(), options.canonical(), options.arch,
                       kSourceModuleVersion};
}

std::shared_ptr<const jit::CacheEntry> source_image(const std::string& name,
                                                    const std::string& source,
                                                    const jit::CompileOptions& options,
                                                    jit::KernelCache& cache) {
  return cache.get_or_build(source_cache_key(source, options), [&] {
    const jit::CompiledImage img = jit::nvrtc_compile(name, source, options);
    spdlog::debug("dualjit: NVRTC compiled module {} for {} in {:.3f} s", name, img.arch,
                  img.compile_seconds);
    jit::CacheEntry e;
    e.payload = img.image;
    e.metadata = {{"kernel", name},
                  {"arch", img.arch},
                  {"format", img.is_cubin ? "cubin" : "ptx"},
                  {"compile_seconds", std::to_string(img.compile_seconds)}};
    return e;
  });
}

SourceModule::SourceModule(std::string name, const std::string& source, jit::CompileOptions options,
                           jit::KernelCache& cache)
    : name_(std::move(name)) {
  options.arch = Context::primary().device().arch();
  const std::string key = source_cache_key(source, options).hex();
  const auto entry = source_image(name_, source, options, cache);
  // Loaded modules by key and context: the in-process level of the cache.
  static std::mutex mu;
  static std::map<std::pair<std::string, CUcontext>, std::shared_ptr<Module>> loaded;
  const CUcontext ctx = Context::primary().handle();
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = loaded[{key, ctx}];
  if (!slot) slot = std::make_shared<Module>(entry->payload, name_);
  module_ = slot;
}

}  // namespace dualjit::cuda
