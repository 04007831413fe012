#include "jit/logging.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <mutex>

namespace dualjit::jit {

void init_logging_from_env() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* level = std::getenv("DUALJIT_LOG_LEVEL");
    spdlog::set_level(level ? spdlog::level::from_str(level) : spdlog::level::warn);
  });
}

}  // namespace dualjit::jit
