#pragma once
// NVRTC wrapper: one kernel source in, CUBIN (or PTX as fallback) plus the ptxas resource
// report out. Errors carry the NVRTC log and the generated source around each error line.

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dualjit::jit {

struct CompileOptions {
  std::string arch = "sm_90";  // "sm_XX" -> CUBIN, "compute_XX" -> PTX
  int opt_level = 3;           // 0..3, passed to ptxas as -O<n>
  bool fast_math = false;
  // Let ptxas fuse a multiply and an add into one FMA. Off (--fmad=false), every operation is
  // rounded on its own, so a result no longer depends on how a kernel happens to be scheduled:
  // the deterministic assembly compiles that way.
  bool fused_multiply_add = true;
  std::vector<std::string> extra;  // passed to NVRTC verbatim, after the built-in options

  // Stable text naming every option passed to NVRTC (one per line), for cache keys.
  std::string canonical() const;
};

// Resource usage of one kernel as reported by `ptxas -v`; -1 registers means "not reported"
// (e.g. PTX-only compiles, where ptxas does not run).
struct PtxasReport {
  int registers = -1;
  int stack_bytes = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  // Spill stores of the device functions compiled with the kernel (row groups' chunks, split
  // pieces, the out-of-line specials), where the log holds no other kernel to share them.
  int function_spill_store_bytes = 0;
  int shared_bytes = 0;
  int constant_bytes = 0;
  std::string raw;  // the ptxas lines of the log for this kernel
};

struct CompiledImage {
  std::string kernel_name;
  std::string arch;  // what was actually compiled for ("compute_XX" after a fallback)
  bool is_cubin = true;
  std::vector<char> image;  // CUBIN bytes, or PTX text including its terminating NUL
  PtxasReport ptxas;
  double compile_seconds = 0;
  std::string log;  // the full NVRTC log
};

class CompileError : public std::runtime_error {
 public:
  // `log` is the compiler's log; error lines in it of the form "name(LINE): error" (NVRTC) or
  // "name:LINE:COL: error" (GCC/Clang) are shown with numbered lines of `source` around them.
  CompileError(std::string kernel_name, std::string log, std::string_view source,
               std::string_view what = "compilation failed");
  const std::string& kernel_name() const { return kernel_name_; }
  const std::string& log() const { return log_; }

 private:
  std::string kernel_name_;
  std::string log_;
};

// With a driver present, NVRTC serves CUBINs from the driver's compute cache, and then ptxas
// does not run and prints no report: registers and spills would go missing from a kernel's
// metadata (seen on an H100 on a second run). dualjit keeps its own cache, so this sets
// CUDA_CACHE_DISABLE=1 for the process unless the user set it. The driver reads it at cuInit:
// nvrtc_compile and the CUDA backend's driver start call it first.
void disable_nvrtc_cache();

// Throws CompileError on failure and std::invalid_argument on a malformed arch/opt_level.
CompiledImage nvrtc_compile(const std::string& kernel_name, const std::string& source,
                            const CompileOptions& options);

// "nvrtc 13.0 (libnvrtc.so.13, 109338064 bytes, mtime 1760564160)": the API version plus the
// real file behind the loaded library, so a toolkit upgrade changes cache keys.
std::string nvrtc_identity();

// Architectures the loaded NVRTC can emit CUBIN for, as "sm_XX", ascending.
std::vector<std::string> nvrtc_supported_archs();

// The ptxas report for `kernel_name` in an NVRTC log (exposed for tests and other backends).
PtxasReport parse_ptxas_report(const std::string& log, const std::string& kernel_name);

}  // namespace dualjit::jit
