// cut() (dsl/expr.h): an intermediate that first derivatives are taken through. The JIT gives
// it a direction of its own, so what follows it carries one tangent component for it instead
// of its operand's many; second-order modes differentiate straight through it. (That the
// results are exact: tests/backends/cpu_kernel_test.cpp, against the reference evaluator.)
#include <doctest/doctest.h>

#include "jit/lowering.h"
#include "support/test_kernels.h"

using namespace dualjit;

namespace {

jit::LoweredKernel lower_as(const Kernel& k, Mode mode, int width) {
  jit::LoweringOptions o;
  o.mode = mode;
  o.width = width;
  return jit::lower(k, o);
}

}  // namespace

TEST_CASE("a cut of a dense intermediate makes the Jacobian cheaper at every width") {
  const Kernel cut = test::cut_kernel(true), plain = test::cut_kernel(false);
  for (int w : {0, 3}) {
    CAPTURE(w);
    const auto with = lower_as(cut, Mode::Jacobian, w),
               without = lower_as(plain, Mode::Jacobian, w);
    MESSAGE("W=" << w << ": flops with cuts " << with.ops.flops() << ", without "
                 << without.ops.flops());
    CHECK(with.ops.flops() < without.ops.flops());
    // The same plan: cuts add no chunk and no stored column.
    CHECK(with.plan.chunks.size() == without.plan.chunks.size());
  }
}

TEST_CASE("values and second order go straight through a cut") {
  const Kernel cut = test::cut_kernel(true, true), plain = test::cut_kernel(false, true);
  CHECK(lower_as(cut, Mode::Value, 0).ops.flops() == lower_as(plain, Mode::Value, 0).ops.flops());
  CHECK(lower_as(cut, Mode::Hessian, 0).ops.flops() ==
        lower_as(plain, Mode::Hessian, 0).ops.flops());
}

TEST_CASE("a cut is the identity in the graph: of a constant it is the constant") {
  const Kernel k("cut_const", [](KernelBuilder& kb) {
    auto x = kb.input("x", 1);
    kb.output("y", x[0] * cut(kb.constant(2.0)) + cut(cut(x[0])));
  });
  size_t cuts = 0;
  for (size_t i = 0; i < k.graph().size(); ++i)
    cuts += k.graph().node(static_cast<NodeId>(i)).op == Op::Cut;
  CHECK(cuts == 1);  // cut(2) folds to 2, cut(cut(x)) to one cut
}
