// Outputs composed from other outputs (jit/composed_outputs.h) and the row groups that read the
// rows they are composed from (jit/derivative_plan.h Chunk::reads). That the composed rows are
// the rows: tests/backends/cpu_kernel_test.cpp and cuda_kernel_test.cpp, against the reference.
#include <doctest/doctest.h>

#include "jit/composed_outputs.h"
#include "jit/lowering.h"
#include "support/test_kernels.h"

using namespace dualjit;

TEST_CASE("composed outputs: the outputs each is composed from, bases only") {
  const jit::OutputComposition c = jit::output_composition(test::composed_kernel());
  REQUIRE(c.bases.size() == 6);
  CHECK(c.any());
  CHECK(c.bases[2] == std::vector<int>{0, 1});
  CHECK(c.bases[5] == std::vector<int>{0, 3});
  // y4 reaches y2, itself composed: computed whole. The rest are computed from the inputs.
  for (int o : {0, 1, 3, 4}) CHECK_FALSE(c.composed(o));
  // An output that is another's leaf or constant composes nothing: no work to reuse.
  const Kernel leafy("leafy", [](KernelBuilder& kb) {
    auto x = kb.input("x", 2);
    kb.output("y", {x[0], x[0] * x[1], x[0] * exp(x[1])});
  });
  CHECK_FALSE(jit::output_composition(leafy).any());
}

TEST_CASE("composed outputs: in row groups of their own, last, reading their bases' rows") {
  const Kernel k = test::composed_kernel();
  // 4 computed rows in groups of 2, then the 2 composed ones; 4 columns in chunks of 2.
  const jit::DerivativePlan p = jit::plan_derivatives(k, Mode::Jacobian, 2, 2, true);
  REQUIRE(p.chunks.size() == 6);
  CHECK(p.chunks[0].outputs == std::vector<int>{0, 1});
  CHECK(p.chunks[2].outputs == std::vector<int>{3, 4});
  for (size_t c = 0; c < 4; ++c) CHECK_FALSE(p.chunks[c].reads_rows());
  for (size_t c = 4; c < 6; ++c) {
    CHECK(p.chunks[c].outputs == std::vector<int>{2, 5});
    CHECK(p.chunks[c].reads == std::vector<int>{0, 1, 3});
  }
  CHECK(p.first_reading_chunk() == 4);
  CHECK(jit::describe(p).find("outputs 2 5, reads 0..1 3") != std::string::npos);
  // Without composition, or without row groups, nothing reads.
  const jit::DerivativePlan plain = jit::plan_derivatives(k, Mode::Jacobian, 2, 2, false);
  CHECK(plain.first_reading_chunk() == 6);
  CHECK(plain.chunks[2].outputs == std::vector<int>{2, 3});
  CHECK(jit::plan_derivatives(k, Mode::Jacobian, 2, 0, true).first_reading_chunk() == 2);
}

TEST_CASE("composed outputs: a composed row costs a fraction of computing it") {
  // y_12 of every y_k: composed, its group reads 12 rows and adds 12 products per column
  // instead of recomputing every chain, in column chunks of at most 8 (8 + 4 columns).
  const int n = 12;
  const Kernel k = test::composed_sum_kernel(n);
  jit::LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.rows = 4;
  const jit::LoweredKernel composed = jit::lower(k, o);
  o.compose_rows = false;
  const jit::LoweredKernel whole = jit::lower(k, o);
  REQUIRE(composed.plan.chunks.size() == 5);  // 3 groups of 4 rows, then y_12 in 2 chunks
  for (size_t c = 3; c < 5; ++c) {
    CHECK(composed.plan.chunks[c].reads.size() == static_cast<size_t>(n));
    CHECK(composed.plan.chunks[c].outputs == std::vector<int>{n});
  }
  CHECK(composed.plan.chunks[3].first_columns.size() == 8);
  CHECK(composed.plan.chunks[4].first_columns.size() == 4);
  CHECK(composed.plan.chunks[3].writes_values);
  CHECK_FALSE(composed.plan.chunks[4].writes_values);
  CHECK(composed.symbol.find("_cr") != std::string::npos);
  CHECK(whole.symbol.find("_cr") == std::string::npos);
  const double sum_row =
      static_cast<double>(composed.chunk_ops[3].flops() + composed.chunk_ops[4].flops());
  const double computed = static_cast<double>(whole.chunk_ops.back().flops());
  MESSAGE("composed row " << sum_row << " flops, computed " << computed);
  CHECK(sum_row * 5 < computed);
  // It reads the stored values and derivatives, and the element runs it after the rest.
  CHECK(composed.cuda_source.find("val[") != std::string::npos);
  CHECK(composed.cuda_source.find("_element(a, e, warp % 1, 1, 1)") != std::string::npos);
  CHECK(composed.host_source.find("_element(*a, e, 0, 1, 1)") != std::string::npos);
}

TEST_CASE("composed outputs as launches: the reading chunks make the last launch, alone") {
  const Kernel k = test::composed_kernel();
  jit::LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.rows = 1;  // 4 computed groups, then 2 composed ones
  o.launches = 3;
  const std::vector<jit::LoweredKernel> parts = jit::lower_launches(k, o);
  REQUIRE(parts.size() == 3);
  CHECK_FALSE(parts[0].reads_rows);
  CHECK_FALSE(parts[1].reads_rows);
  CHECK(parts[2].reads_rows);
  CHECK(parts[0].plan.chunks.size() + parts[1].plan.chunks.size() == 4);
  CHECK(parts[2].plan.chunks.size() == 2);
  // In a launch of its own the reading chunks run in one phase: nothing else to wait for.
  CHECK(parts[2].cuda_source.find("__syncthreads") == std::string::npos);
  // Threads per element > 1 in one kernel: a barrier between the phases.
  o.launches = 1;
  o.layout = {2, 64};
  const jit::LoweredKernel one = jit::lower(k, o);
  CHECK(one.reads_rows);
  CHECK(one.cuda_source.find("__syncthreads();") != std::string::npos);
}
