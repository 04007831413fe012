// A lowered kernel compiled by NVRTC for one architecture, through the kernel cache: the
// key is the source, NVRTC's identity, the options, the target and the codegen version.
// Needs no GPU (an explicit arch compiles on a build machine).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "jit/kernel_cache.h"
#include "jit/lowering.h"
#include "jit/nvrtc_compiler.h"

namespace dualjit::jit {

struct CudaImage {
  std::shared_ptr<const CacheEntry> entry;  // payload: CUBIN (or PTX)
  bool compiled_now = false;                // false: served from memory or disk
  bool is_cubin = true;
  double compile_seconds = 0;  // of the compile that produced it
  PtxasReport ptxas;           // from the compile, kept in the entry's metadata
  std::string log;             // NVRTC's log when compiled now, else empty
  std::string arch;
};

// NVRTC options for a lowered kernel on `arch`: full optimisation, except that under
// CompileEffort::Auto kernels of more than kLargeKernel statements compile with
// --Ofast-compile=max (ptxas -O0), which turns minutes into seconds for chemistry-sized
// graphs (jit/lowering.h); and the driver's CompileFlags
// (jit/driver.h): FMA contraction off where a strategy promises the same bits for any layout,
// an architecture-specific target where it needs one. A launch that writes tapes compiles
// without contraction too: ptxas computed GRI-3.0's tapes wrong with it.
CompileOptions default_compile_options(const LoweredKernel& kernel, const std::string& arch);

// Whether ptxas held a launch to the ABI's floor of registers and spilled (entry registers at
// most 32, at least 1 KB of spill stores in it and its functions, and launch bounds that allow
// more than twice that many registers). Left to choose registers itself (no minimum of blocks
// per multiprocessor), ptxas does so at -O2 and -O3, from small changes of the source, to
// launches whose element functions it allocates on their own (row groups' chunks, split
// pieces), which then spill tens of KB a thread (GRI-3.0's reactor Jacobian in rows of 2: 17 KB
// a chunk at 32 registers, 2 KB at 255). cuda_image compiles such a launch again at -O1 and
// keeps that image if it has more registers.
bool ptxas_collapsed(const PtxasReport& report, const LaunchLayout& layout);

CacheKey cuda_cache_key(const LoweredKernel& kernel, const CompileOptions& options);
CudaImage cuda_image(const LoweredKernel& kernel, const CompileOptions& options,
                     KernelCache& cache = KernelCache::global());

// cuda_image of each kernel with options_of(kernel), on parallel threads (at most one per
// core): the launches of a split kernel (lower_launches). The first failure is rethrown once
// all have finished.
std::vector<CudaImage> cuda_images(
    const std::vector<LoweredKernel>& kernels,
    const std::function<CompileOptions(const LoweredKernel&)>& options_of,
    KernelCache& cache = KernelCache::global());

}  // namespace dualjit::jit
