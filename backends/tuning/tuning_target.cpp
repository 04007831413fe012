#include "backends/tuning/tuning_target.h"

#include <sys/utsname.h>

#include <fstream>

#include "backends/cuda/driver.h"
#include "dsl/sha256.h"

namespace dualjit::tuning {

TuningTarget cuda_target() {
  const cuda::DeviceInfo& d = cuda::Context::primary().device();
  return {Target::Cuda, d.name, d.arch()};
}

TuningTarget cpu_target() {
  TuningTarget t;
  t.target = Target::Cpu;
  t.device = "unknown CPU";
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      t.device = line.substr(line.find(':') + 1);
      t.device.erase(0, t.device.find_first_not_of(' '));
      break;
    }
  }
  utsname u{};
  t.arch = std::string("cpu-") + (uname(&u) == 0 ? u.machine : "unknown");
  return t;
}

std::string kernels_hash(const std::vector<const Kernel*>& kernels) {
  Sha256 h;
  for (const Kernel* k : kernels) {
    h.update(k->hash());
    h.update("\n");
  }
  return h.hex_digest();
}

jit::TuningKey tuning_key(const TuningTarget& target, const std::string& kernel_hash,
                          const std::string& mode, int64_t n_elements) {
  jit::TuningKey key;
  key.kernel_hash = kernel_hash;
  key.mode = mode;
  key.backend = std::string(target_name(target.target));
  key.device = target.device;
  key.arch = target.arch;
  key.bucket = jit::size_bucket(n_elements);
  return key;
}

}  // namespace dualjit::tuning
