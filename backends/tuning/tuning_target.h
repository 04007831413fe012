// What a tuning record is keyed by besides the kernel: the backend and the device it ran on,
// and the problem-size bucket.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/tuning/fused_config.h"
#include "dsl/kernel.h"
#include "jit/tuning_db.h"

namespace dualjit::tuning {

struct TuningTarget {
  Target target = Target::Cpu;
  std::string device;  // GPU name, or the CPU model
  std::string arch;    // "sm_90", or "cpu-x86_64"
};

// The current GPU (the primary context's device); throws cuda::CudaError without one.
TuningTarget cuda_target();
// The host CPU: the model name from /proc/cpuinfo (or "unknown CPU") and the machine type.
TuningTarget cpu_target();

// SHA-256 over the hashes of every kernel a configuration applies to (in order).
std::string kernels_hash(const std::vector<const Kernel*>& kernels);

jit::TuningKey tuning_key(const TuningTarget& target, const std::string& kernel_hash,
                          const std::string& mode, int64_t n_elements);

}  // namespace dualjit::tuning
