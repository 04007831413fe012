#include "jit/cuda_image.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

#include "jit/parallel_for.h"

namespace dualjit::jit {
namespace {

int metadata_int(const CacheEntry& e, const std::string& key, int fallback) {
  const auto it = e.metadata.find(key);
  if (it == e.metadata.end()) return fallback;
  try {
    return std::stoi(it->second);
  } catch (const std::exception&) {
    return fallback;
  }
}

}  // namespace

bool ptxas_collapsed(const PtxasReport& report, const LaunchLayout& layout) {
  constexpr int kAbiFloor = 32;
  const int threads = std::max(1, layout.block_threads()) * std::max(1, layout.min_blocks);
  const int cap = std::min(255, 65536 / threads);
  const int spilled = report.spill_store_bytes + report.function_spill_store_bytes;
  return report.registers > 0 && report.registers <= kAbiFloor && spilled >= 1024 &&
         cap > 2 * kAbiFloor;
}

CompileOptions default_compile_options(const LoweredKernel& kernel, const std::string& arch) {
  CompileOptions o;
  o.arch = arch;
  // ptxas (CUDA 13.0, sm_90) computes GRI-3.0's tape chunk wrong whenever it may contract
  // multiplies and adds into FMAs: at -O1 to -O3 a few tapes of 2,430 come out wrong by orders
  // of magnitude, different ones at each level, none once stores of intermediates are added.
  // Without contraction the tapes equal the CPU's bits (bench/RESULTS.md).
  o.fused_multiply_add = kernel.compile.fused_multiply_add && !kernel.writes_tape;
  if (const std::string& specific = kernel.compile.arch_specific; !specific.empty()) {
    // "sm_90a" runs on sm_90 only: it replaces that target and refuses any other.
    const std::string base = specific.substr(0, specific.size() - 1);
    if (arch != base && arch != specific)
      throw std::invalid_argument("kernel '" + kernel.kernel_name + "' (" + kernel.symbol +
                                  "): needs " + specific + ", not " + arch);
    o.arch = specific;
  }
  if (kernel.options.compile_effort == CompileEffort::Auto && kernel.statements > kLargeKernel) {
    o.opt_level = 0;  // --Ofast-compile=max implies ptxas -O0 and rejects any other level
    o.extra.push_back("--Ofast-compile=max");
  }
  return o;
}

CacheKey cuda_cache_key(const LoweredKernel& kernel, const CompileOptions& options) {
  // The source enters the key through its digest: still computed from inputs, never from
  // compiled output, and a hit costs no pass over the text.
  return CacheKey{kernel.cuda_source_sha256(), nvrtc_identity(), options.canonical(), options.arch,
                  kCodegenVersion};
}

CudaImage cuda_image(const LoweredKernel& kernel, const CompileOptions& options,
                     KernelCache& cache) {
  CudaImage out;
  const CacheKey key = cuda_cache_key(kernel, options);
  out.entry = cache.get_or_build(key, [&] {
    CompiledImage img = nvrtc_compile(kernel.cuda_entry, kernel.cuda_source, options);
    std::string retried;
    if (options.opt_level > 1 && ptxas_collapsed(img.ptxas, kernel.options.layout)) {
      CompileOptions o1 = options;
      o1.opt_level = 1;
      CompiledImage again = nvrtc_compile(kernel.cuda_entry, kernel.cuda_source, o1);
      spdlog::warn(
          "dualjit: ptxas held {} to {} registers with {} B of spill stores at -O{}; at -O1: {} "
          "registers, {} B",
          kernel.symbol, img.ptxas.registers,
          img.ptxas.spill_store_bytes + img.ptxas.function_spill_store_bytes, options.opt_level,
          again.ptxas.registers,
          again.ptxas.spill_store_bytes + again.ptxas.function_spill_store_bytes);
      if (again.ptxas.registers > img.ptxas.registers) {
        again.compile_seconds += img.compile_seconds;
        img = std::move(again);
        retried = "O1";
      }
    }
    out.compiled_now = true;
    out.log = img.log;
    CacheEntry e;
    e.payload = img.image;
    e.metadata = {
        {"kernel", kernel.kernel_name},
        {"symbol", kernel.symbol},
        {"mode", std::string(mode_name(kernel.plan.mode))},
        {"width", std::to_string(kernel.plan.width)},
        {"layout", kernel.options.layout.describe()},
        {"arch", img.arch},
        {"format", img.is_cubin ? "cubin" : "ptx"},
        {"compile_seconds", std::to_string(img.compile_seconds)},
        {"registers", std::to_string(img.ptxas.registers)},
        {"stack_bytes", std::to_string(img.ptxas.stack_bytes)},
        {"spill_store_bytes", std::to_string(img.ptxas.spill_store_bytes)},
        {"spill_load_bytes", std::to_string(img.ptxas.spill_load_bytes)},
        {"function_spill_store_bytes", std::to_string(img.ptxas.function_spill_store_bytes)}};
    if (!retried.empty()) e.metadata["ptxas_retry"] = retried;
    spdlog::debug("dualjit: NVRTC compiled {} for {} in {:.3f} s ({} registers)", kernel.symbol,
                  img.arch, img.compile_seconds, img.ptxas.registers);
    return e;
  });
  const CacheEntry& e = *out.entry;
  const auto arch = e.metadata.find("arch");
  out.arch = arch == e.metadata.end() ? options.arch : arch->second;
  const auto fmt = e.metadata.find("format");
  out.is_cubin = fmt == e.metadata.end() || fmt->second == "cubin";
  const auto cs = e.metadata.find("compile_seconds");
  out.compile_seconds = cs == e.metadata.end() ? 0.0 : std::atof(cs->second.c_str());
  out.ptxas.registers = metadata_int(e, "registers", -1);
  out.ptxas.stack_bytes = metadata_int(e, "stack_bytes", 0);
  out.ptxas.spill_store_bytes = metadata_int(e, "spill_store_bytes", 0);
  out.ptxas.spill_load_bytes = metadata_int(e, "spill_load_bytes", 0);
  out.ptxas.function_spill_store_bytes = metadata_int(e, "function_spill_store_bytes", 0);
  return out;
}

std::vector<CudaImage> cuda_images(
    const std::vector<LoweredKernel>& kernels,
    const std::function<CompileOptions(const LoweredKernel&)>& options_of, KernelCache& cache) {
  std::vector<CudaImage> out(kernels.size());
  parallel_for(kernels.size(),
               [&](size_t i) { out[i] = cuda_image(kernels[i], options_of(kernels[i]), cache); });
  return out;
}

}  // namespace dualjit::jit
