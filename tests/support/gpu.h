// The one way a test case says it needs a GPU:
//
//   TEST_CASE("GPU assembly equals the host" * test::needs_gpu()) { ... }
//
// Without a usable CUDA driver the case is skipped, so that doctest's summary counts it under
// "skipped" rather than as a pass with no assertions. With DUALJIT_REQUIRE_GPU=1 in the
// environment (runs on GPU machines) a missing GPU is a failure of each such case instead, named
// by doctest with the driver's reason, so that a GPU run cannot pass by testing nothing.
//
// doctest (2.4) has no skip at run time: decorators are applied when the case is registered,
// during static initialisation, which is why driver_available() (which never throws) is asked
// then.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>

#include "backends/cuda/driver.h"

namespace dualjit::test {

// True when DUALJIT_REQUIRE_GPU is set to anything but "" or "0".
inline bool gpu_required() {
  const char* v = std::getenv("DUALJIT_REQUIRE_GPU");
  return v && *v && std::strcmp(v, "0") != 0;
}

// Replaces the body of a GPU case when a GPU is required but there is none.
inline void fail_without_required_gpu() {
  FAIL("DUALJIT_REQUIRE_GPU=1 but no usable GPU: " << cuda::driver_unavailable_reason());
}

// doctest decorator for GPU test cases (see the top of this file).
struct needs_gpu {
  void fill(doctest::detail::TestCase& tc) const {
    if (cuda::driver_available()) return;
    if (gpu_required())
      tc.m_test = &fail_without_required_gpu;
    else
      tc.m_skip = true;
  }
};

}  // namespace dualjit::test
