// jit/jacobian_pattern.h: the structural sparsity of a kernel's Jacobian from its graph, and
// sparse Jacobian kernels (LoweringOptions::sparse_jacobian) that store only those entries.
// (Their values against the dense kernel: tests/backends/cpu_kernel_test.cpp.)
#include <doctest/doctest.h>

#include "jit/jacobian_pattern.h"
#include "jit/lowering.h"
#include "support/test_kernels.h"

using namespace dualjit;

namespace {

// y0 = x0 x1; y1 = select(x2 > x3, x4, 2) (the condition carries no derivative); y2 = 3;
// y3 = cut(x0 + x5) * x1 (a cut depends on its operand's inputs).
Kernel sparse_kernel() {
  return Kernel("sparse", [](KernelBuilder& kb) {
    auto x = kb.input("x", 6);
    kb.output("y", std::vector<Expr>{x[0] * x[1], select(x[2] > x[3], x[4], 2.0), kb.constant(3.0),
                                     cut(x[0] + x[5]) * x[1]});
  });
}

}  // namespace

TEST_CASE("Jacobian pattern: dependencies through arithmetic, selects and cuts") {
  const jit::JacobianPattern p = jit::jacobian_pattern(sparse_kernel());
  CHECK(p.n_rows == 4);
  CHECK(p.n_cols == 6);
  CHECK(p.row_ptr == std::vector<int32_t>{0, 2, 3, 3, 6});
  CHECK(p.col_idx == std::vector<int32_t>{0, 1, 4, 0, 1, 5});
  CHECK(p.index(3, 5) == 5);
  CHECK(p.index(1, 2) == -1);  // the select's condition
  CHECK(p.index(2, 0) == -1);
}

TEST_CASE("a sparse Jacobian kernel stores nnz entries per element; other modes refuse it") {
  jit::LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.sparse_jacobian = true;
  for (int w : {0, 2}) {
    o.width = w;
    const jit::LoweredKernel l = jit::lower(sparse_kernel(), o);
    CHECK(l.first_size == 6);
    CHECK(l.first_pattern.nnz() == 6);
    CHECK(l.symbol.find("_sp") != std::string::npos);
  }
  o.mode = Mode::Gradient;
  CHECK_THROWS_WITH_AS(jit::lower(test::spring_kernel(), o),
                       doctest::Contains("kernel 'spring': a sparse Jacobian in mode gradient"),
                       std::invalid_argument);
}
