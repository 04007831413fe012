// Shared values (jit/shared_values.h): the special functions several row groups need come from a
// values pass, chunk 0, and the groups load them. (That the results equal the reference:
// tests/backends/cpu_kernel_test.cpp and cuda_kernel_test.cpp.)
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

TEST_CASE("shared values: the special functions below two or more row groups") {
  const Kernel k = shared_rows(4);
  const jit::DerivativePlan plain = jit::plan_derivatives(k, Mode::Jacobian, 0, 1);
  const std::vector<NodeId> shared = jit::shared_values(k, plain);
  REQUIRE(shared.size() == 1);  // the exp: each log is one group's, sqrt is not a candidate
  CHECK(k.graph().node(shared[0]).op == Op::Exp);
  // Without row groups, or with one group, nothing is shared.
  CHECK(jit::shared_values(k, jit::plan_derivatives(k, Mode::Jacobian, 0, 0)).empty());
  CHECK(jit::shared_values(k, jit::plan_derivatives(k, Mode::Jacobian, 0, 4)).empty());
  CHECK(jit::is_shared_candidate(Op::Pow));
  CHECK_FALSE(jit::is_shared_candidate(Op::Div));
  CHECK_FALSE(jit::is_shared_candidate(Op::Input));
}

TEST_CASE("shared values: a values pass first, and groups that compute no special it stores") {
  const Kernel k = shared_rows(4);
  const jit::DerivativePlan p = jit::plan_derivatives(k, Mode::Jacobian, 2, 1, true);
  REQUIRE(p.chunks.size() == 1 + 4 * 2);  // the pass, then 4 groups of 2 column chunks
  CHECK(p.chunks[0].values_pass);
  CHECK(p.chunks[0].directions.empty());
  CHECK_FALSE(p.chunks[0].writes_values);
  CHECK(std::none_of(p.chunks.begin() + 1, p.chunks.end(),
                     [](const jit::Chunk& c) { return c.values_pass; }));
  CHECK(p.shared.size() == 1);
  CHECK(jit::describe(p).find("values pass, 1 shared values") != std::string::npos);

  jit::LoweringOptions o;
  o.width = 2;
  o.rows = 1;
  const jit::LoweredKernel recomputed = jit::lower(k, o);
  o.share_values = true;
  const jit::LoweredKernel shared = jit::lower(k, o);
  CHECK(shared.symbol == recomputed.symbol + "_sv");
  CHECK(shared.n_shared == 1);
  CHECK(shared.values_pass);
  CHECK(recomputed.n_shared == 0);
  REQUIRE(shared.chunk_ops.size() == recomputed.chunk_ops.size() + 1);
  CHECK(shared.chunk_ops[0].special == 1);  // the exp, once
  CHECK(shared.chunk_ops[0].stores == 1);
  // Six of the eight chunks evaluated the exp (the two whose rows need neither its value nor
  // its tangent did not), and four their row's log (the value and x_k's column need it): now
  // the exp once and the four logs.
  CHECK(recomputed.ops.special == 10);
  CHECK(shared.ops.special == 5);
  for (size_t c = 0; c < recomputed.chunk_ops.size(); ++c)
    CHECK(shared.chunk_ops[c + 1].special <= 1);
  // Stored component-major and loaded where the groups need them.
  CHECK(shared.element_source.find("w[0 * ws] = ") != std::string::npos);
  CHECK(shared.element_source.find("= w[0 * ws];") != std::string::npos);
  CHECK(shared.args.find("shared") != nullptr);
  CHECK(recomputed.args.find("shared") == nullptr);
}
