// jit/cuda_image.h's guard against ptxas holding a launch to 32 registers: which reports it
// takes for that, given the launch bounds.
#include <doctest/doctest.h>

#include "jit/cuda_image.h"

namespace {

using namespace dualjit::jit;

PtxasReport report(int registers, int spill_stores, int function_spill_stores = 0) {
  PtxasReport r;
  r.registers = registers;
  r.spill_store_bytes = spill_stores;
  r.function_spill_store_bytes = function_spill_stores;
  return r;
}

LaunchLayout layout(int threads_per_element, int elements_per_block, int min_blocks) {
  LaunchLayout l;
  l.threads_per_element = threads_per_element;
  l.elements_per_block = elements_per_block;
  l.min_blocks = min_blocks;
  return l;
}

}  // namespace

TEST_CASE("ptxas_collapsed: 32 registers and spills where the bounds allow 255") {
  const LaunchLayout free128 = layout(1, 128, 0);
  CHECK(ptxas_collapsed(report(32, 620, 17192), free128));
  CHECK(ptxas_collapsed(report(24, 1100), free128));
  // The kernel's own frame spills nothing; its chunk does.
  CHECK(ptxas_collapsed(report(32, 0, 14712), free128));
  // Spilling with room: not the floor.
  CHECK_FALSE(ptxas_collapsed(report(168, 9088, 40000), free128));
  CHECK_FALSE(ptxas_collapsed(report(40, 2000), free128));
  // Few registers and little or no spill: a small kernel, or an out-of-line exp's few saves.
  CHECK_FALSE(ptxas_collapsed(report(30, 0), free128));
  CHECK_FALSE(ptxas_collapsed(report(32, 0, 68), free128));
  // No report (the driver's cache served the image).
  CHECK_FALSE(ptxas_collapsed(report(-1, 0), free128));
}

TEST_CASE("ptxas_collapsed: launch bounds that cap registers near 32 are no collapse") {
  // 1,024 threads a block: 64 registers at most; 512 threads, 2 blocks: 64.
  CHECK_FALSE(ptxas_collapsed(report(32, 4000), layout(1, 1024, 0)));
  CHECK_FALSE(ptxas_collapsed(report(32, 4000), layout(4, 128, 2)));
  // 256 threads, 2 blocks: 128 registers allowed.
  CHECK(ptxas_collapsed(report(32, 4000), layout(2, 128, 2)));
}
