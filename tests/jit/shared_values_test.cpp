// Shared frontier (jit/shared_values.h): what several row groups need comes from a values
// pass, chunk 0, values and first-order components, and the groups load them. (That the results
// equal the reference: tests/backends/cpu_kernel_test.cpp and cuda_kernel_test.cpp.)
#include <doctest/doctest.h>

#include <algorithm>

#include "jit/lowering.h"
#include "jit/shared_values.h"

using namespace dualjit;

namespace {

// y_k = e * x_k + log(x_k) with e = exp(x_0 x_1) shared by every row; each log by one row;
// sqrt(x_0) shared by every row but not a special function.
Kernel shared_rows(int n) {
  return Kernel("shared_rows", [n](KernelBuilder& kb) {
    auto x = kb.input("x", n);
    const Expr e = exp(x[0] * x[1]), r = sqrt(x[0]);
    std::vector<Expr> y;
    for (int k = 0; k < n; ++k) y.push_back(e * x[k] + log(x[k]) + r);
    kb.output("y", y);
  });
}

}  // namespace

TEST_CASE("shared frontier: the first nodes below a group's own that other groups need too") {
  const Kernel k = shared_rows(4);
  const jit::DerivativePlan plain = jit::plan_derivatives(k, Mode::Jacobian, 0, 1);
  const std::vector<jit::SharedNode> shared = jit::shared_frontier(k, plain);
  // The exp (its operand x_0 x_1, arithmetic of inputs, is recomputed where needed) and the
  // sqrt; each log is one group's.
  REQUIRE(shared.size() == 2);
  CHECK(k.graph().node(shared[0].node).op == Op::Exp);
  CHECK(shared[0].slot == 0);
  CHECK(shared[0].directions == std::vector<int32_t>{0, 1});
  CHECK(k.graph().node(shared[1].node).op == Op::Sqrt);
  CHECK(shared[1].slot == 3);
  CHECK(shared[1].directions == std::vector<int32_t>{0});
  // Without row groups, with one group, or with two column chunks a group, nothing is shared.
  CHECK(jit::shared_frontier(k, jit::plan_derivatives(k, Mode::Jacobian, 0, 0)).empty());
  CHECK(jit::shared_frontier(k, jit::plan_derivatives(k, Mode::Jacobian, 0, 4)).empty());
  CHECK(jit::shared_frontier(k, jit::plan_derivatives(k, Mode::Jacobian, 2, 1)).empty());
  // Values alone: the same nodes, no components.
  const auto values = jit::shared_frontier(k, jit::plan_derivatives(k, Mode::Value, 0, 1));
  REQUIRE(values.size() == 2);
  CHECK(values[1].slot == 1);
  CHECK(values[0].directions.empty());
}

TEST_CASE("shared frontier: a cut's direction among the components, never the cut itself") {
  // s = cut(x_0 + x_1 + x_2) is below every group: expanded by each, never loaded; the sum
  // inside it is loaded (three components), and exp(s x_0) with a component in x_0 and one in
  // the cut's direction.
  const Kernel k("cut_rows", [](KernelBuilder& kb) {
    auto x = kb.input("x", 3);
    const Expr s = cut(x[0] + x[1] + x[2]);
    const Expr e = exp(s * x[0]);
    kb.output("y", {e * x[1], e * x[2], s * x[1]});
  });
  const auto shared = jit::shared_frontier(k, jit::plan_derivatives(k, Mode::Jacobian, 0, 1));
  REQUIRE(shared.size() == 2);
  CHECK(k.graph().node(shared[0].node).op == Op::Add);
  CHECK(shared[0].directions == std::vector<int32_t>{0, 1, 2});
  CHECK(k.graph().node(shared[1].node).op == Op::Exp);
  CHECK(shared[1].directions == std::vector<int32_t>{0, 3});  // x_0, and the cut (3 + rank 0)
}

TEST_CASE("shared values: a values pass first, and groups that compute nothing it stores") {
  const Kernel k = shared_rows(4);
  const jit::DerivativePlan p = jit::plan_derivatives(k, Mode::Jacobian, 0, 1, true);
  REQUIRE(p.chunks.size() == 1 + 4);  // the pass, then 4 groups
  CHECK(p.chunks[0].values_pass);
  CHECK(p.chunks[0].directions == p.chunks[1].directions);
  CHECK_FALSE(p.chunks[0].writes_values);
  CHECK(std::none_of(p.chunks.begin() + 1, p.chunks.end(),
                     [](const jit::Chunk& c) { return c.values_pass; }));
  CHECK(p.shared.size() == 2);
  CHECK(p.n_shared_slots == 5);
  CHECK(jit::describe(p).find("values pass, 2 shared nodes in 5 slots") != std::string::npos);

  jit::LoweringOptions o;
  o.rows = 1;
  const jit::LoweredKernel recomputed = jit::lower(k, o);
  o.share_values = true;
  const jit::LoweredKernel shared = jit::lower(k, o);
  CHECK(shared.symbol == recomputed.symbol + "_sv");
  CHECK(shared.n_shared == 5);
  CHECK(shared.values_pass);
  CHECK(recomputed.n_shared == 0);
  REQUIRE(shared.chunk_ops.size() == recomputed.chunk_ops.size() + 1);
  CHECK(shared.chunk_ops[0].special == 1);  // the exp, once
  CHECK(shared.chunk_ops[0].stores == 5);   // its value and 2 components, sqrt's value and 1
  // Each of the four groups evaluated the exp and its row's log: now the exp once, and each
  // group its log alone.
  CHECK(recomputed.ops.special == 8);
  CHECK(shared.ops.special == 5);
  for (size_t c = 0; c < recomputed.chunk_ops.size(); ++c)
    CHECK(shared.chunk_ops[c + 1].special == 1);
  // Stored component-major and loaded where the groups need them.
  CHECK(shared.element_source.find("w[0 * ws] = ") != std::string::npos);
  CHECK(shared.element_source.find("= w[2 * ws];") != std::string::npos);
  CHECK(shared.args.find("shared") != nullptr);
  CHECK(recomputed.args.find("shared") == nullptr);
}
