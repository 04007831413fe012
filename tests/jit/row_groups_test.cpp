// Row groups (jit/derivative_plan.h): a vector kernel's outputs split into groups, each chunk
// storing only its group's rows and computing only what they need. (That the rows together are
// the whole result: tests/backends/cpu_kernel_test.cpp, against the reference evaluator.)
#include <doctest/doctest.h>

#include <set>

#include "jit/cuda_image.h"
#include "jit/lowering.h"
#include "support/test_kernels.h"

using namespace dualjit;

namespace {

// y_k = exp(x_k) * x_k for k < n: no output shares any work with another.
Kernel separate_rows(int n) {
  return Kernel("separate_rows", [n](KernelBuilder& kb) {
    auto x = kb.input("x", n);
    std::vector<Expr> y;
    for (int k = 0; k < n; ++k) y.push_back(exp(x[k]) * x[k]);
    kb.output("y", y);
  });
}

}  // namespace

TEST_CASE("row groups: every output in exactly one group, each group runs every column chunk") {
  const Kernel k = separate_rows(7);
  const jit::DerivativePlan p = jit::plan_derivatives(k, Mode::Jacobian, 3, 3);
  CHECK(p.rows == 3);
  // 7 rows in groups of at most 3 as even as 7 allows (3, 2, 2); 7 columns in chunks 3, 2, 2.
  REQUIRE(p.chunks.size() == 9);
  std::multiset<int> seen;
  for (size_t c = 0; c < p.chunks.size(); ++c) {
    const jit::Chunk& ch = p.chunks[c];
    CHECK(ch.writes_values == (c % 3 == 0));  // each group's first column chunk
    if (c % 3 == 0) seen.insert(ch.outputs.begin(), ch.outputs.end());
    CHECK(ch.outputs == p.chunks[c - c % 3].outputs);
  }
  CHECK(seen == std::multiset<int>{0, 1, 2, 3, 4, 5, 6});
  CHECK(p.chunks[0].outputs.size() == 3);
  CHECK(p.chunks[8].outputs.size() == 2);
  // As many rows as outputs, or none, is one group: the plain plan.
  CHECK(jit::plan_derivatives(k, Mode::Jacobian, 3, 7).rows == 0);
  CHECK(jit::plan_derivatives(k, Mode::Jacobian, 3, 0).chunks.size() == 3);
  CHECK(jit::plan_derivatives(k, Mode::Value, 0, 2).chunks.size() == 4);
}

TEST_CASE("row groups: a group computes only its rows' cone") {
  const Kernel k = separate_rows(8);
  jit::LoweringOptions o;
  o.mode = Mode::Jacobian;
  const jit::LoweredKernel whole = jit::lower(k, o);
  o.rows = 1;
  const jit::LoweredKernel grouped = jit::lower(k, o);
  REQUIRE(grouped.chunk_ops.size() == 8);
  // Nothing shared, nothing recomputed: the groups' operations add up to the whole kernel's.
  CHECK(grouped.ops.flops() == whole.ops.flops());
  for (const jit::OpCounts& c : grouped.chunk_ops) CHECK(c.flops() * 8 == whole.ops.flops());
  CHECK(grouped.symbol.find("_r1_") != std::string::npos);
}

TEST_CASE("row groups: refused outside Value and Jacobian modes") {
  const Kernel energy = test::cut_kernel(true, true);
  CHECK_THROWS_WITH_AS(jit::plan_derivatives(energy, Mode::Hessian, 0, 1),
                       doctest::Contains("row groups in mode 'hessian'"), DslError);
}

TEST_CASE("row groups as launches: contiguous chunk ranges of about equal size, in order") {
  const Kernel k = separate_rows(10);
  jit::LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.rows = 1;  // 10 chunks, one row each
  o.launches = 4;
  const std::vector<jit::LoweredKernel> parts = jit::lower_launches(k, o);
  REQUIRE(parts.size() == 4);
  size_t chunks = 0, statements = 0;
  std::set<std::string> symbols;
  for (const jit::LoweredKernel& p : parts) {
    CHECK(p.plan.chunks.size() >= 2);  // 10 equal chunks over 4 launches: 2 or 3 each
    CHECK(p.plan.chunks.size() <= 3);
    CHECK(p.plan.chunks[0].outputs[0] == static_cast<int>(chunks));  // in order, no gap
    chunks += p.plan.chunks.size();
    statements += p.statements;
    symbols.insert(p.symbol);
  }
  CHECK(chunks == 10);
  CHECK(symbols.size() == 4);  // distinct symbols: distinct cache entries and modules
  // Each launch is the kernel lowered over its chunk range, to the byte: lower_launches
  // expands each chunk once (on parallel threads) and emits it into the launch holding it.
  for (const jit::LoweredKernel& p : parts) {
    jit::LoweringOptions alone = o;
    alone.chunks = p.options.chunks;
    const jit::LoweredKernel q = jit::lower(k, alone);
    CHECK(p.symbol == q.symbol);
    CHECK(p.cuda_source == q.cuda_source);
    CHECK(p.host_source == q.host_source);
    CHECK(p.report() == q.report());
  }
  o.launches = 1;
  CHECK(statements == jit::lower(k, o).statements);
  // More launches than chunks: one chunk each. No row groups, one launch, or a small kernel
  // left automatic: the kernel whole.
  o.launches = 20;
  CHECK(jit::lower_launches(k, o).size() == 10);
  o.launches = 0;
  CHECK(jit::lower_launches(k, o).size() == 1);
  o.launches = 4;
  o.rows = 0;
  CHECK(jit::lower_launches(k, o).size() == 1);
  o.launches = -1;
  o.rows = 1;
  CHECK_THROWS_WITH_AS(jit::lower_launches(k, o), doctest::Contains("launches -1"),
                       std::invalid_argument);
  // A chunk range outside the plan is refused, naming the kernel.
  o.launches = 0;
  o.chunks = {3, 11};
  CHECK_THROWS_WITH_AS(jit::lower(k, o), doctest::Contains("'separate_rows': chunks [3, 11)"),
                       std::invalid_argument);
}

TEST_CASE("row groups as launches: compiled on parallel threads, then served by the cache") {
  const Kernel k = separate_rows(10);
  jit::LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.rows = 1;
  o.launches = 4;
  const std::vector<jit::LoweredKernel> parts = jit::lower_launches(k, o);
  REQUIRE(parts.size() == 4);
  jit::KernelCache cache(std::nullopt);  // memory only: no GPU and no disk needed
  const auto options_of = [](const jit::LoweredKernel& l) {
    return jit::default_compile_options(l, "sm_90");
  };
  const std::vector<jit::CudaImage> cold = jit::cuda_images(parts, options_of, cache);
  REQUIRE(cold.size() == 4);
  for (const jit::CudaImage& img : cold) {
    CHECK(img.compiled_now);
    CHECK(img.is_cubin);
    CHECK(img.ptxas.registers > 0);
  }
  const std::vector<jit::CudaImage> warm = jit::cuda_images(parts, options_of, cache);
  for (size_t i = 0; i < warm.size(); ++i) {
    CHECK_FALSE(warm[i].compiled_now);
    CHECK(warm[i].entry == cold[i].entry);  // the same entry, by each launch's own key
  }
  CHECK(cache.stats().memory_hits == 4);
}
