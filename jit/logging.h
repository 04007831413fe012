// The log level comes from $DUALJIT_LOG_LEVEL (trace, debug, info, warn, error, off); the
// default keeps library code silent on success paths.
#pragma once

namespace dualjit::jit {

// Idempotent; called by the JIT's entry points so that no program needs to.
void init_logging_from_env();

}  // namespace dualjit::jit
