// Element code after normalisation: comparisons that only selects read are C booleans the
// select tests directly, negations are left only where no consumer absorbs them, and the
// result compiles with NVRTC.
#include <doctest/doctest.h>

#include <algorithm>
#include <regex>

#include "jit/cuda_image.h"
#include "jit/expand_derivatives.h"
#include "jit/lowering.h"
#include "jit/schedule.h"
#include "support/test_kernels.h"

using namespace dualjit;
using namespace dualjit::jit;

namespace {

LoweringOptions jacobian(int width, bool single_tangents = false) {
  LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.width = width;
  o.single_tangents = single_tangents;
  return o;
}

size_t count(const std::string& s, const std::regex& re) {
  return static_cast<size_t>(
      std::distance(std::sregex_iterator(s.begin(), s.end(), re), std::sregex_iterator()));
}

}  // namespace

TEST_CASE("a comparison that only selects read is a bool; one used as a number is 1.0 or 0.0") {
  KernelCache cache(std::nullopt);
  for (bool single : {false, true}) {
    CAPTURE(single);
    const auto l = lower(test::negations_kernel(), jacobian(4, single));
    const std::string& src = l.element_source;
    // select(a < b, ..), select(x0 >= x1, ..), and the conditions of min and max.
    CHECK(count(src, std::regex(R"(const bool t\d+ = t\d+ (<|<=|>|>=) t\d+;)")) >= 4);
    CHECK(count(src, std::regex(R"(\(t\d+ \? )")) >= 4);
    // (a > c) * b: the comparison is a number.
    CHECK(count(src, std::regex(R"(\(t\d+ > t\d+ \? 1\.0 : 0\.0\))")) == 1);
    // No select tests a value against zero: every condition here is a predicate.
    CHECK(src.find("!= 0.0 ?") == std::string::npos);
    CompileOptions co;
    co.arch = "sm_90";
    const CudaImage img = cuda_image(l, co, cache);
    CHECK(img.is_cubin);
  }
}

TEST_CASE("a comparison stored as an output stays a 1.0 / 0.0 value") {
  const Kernel k("stored_comparison", [](KernelBuilder& kb) {
    auto x = kb.input("x", 2);
    kb.output("f", {x[0] < x[1], select(x[0] < x[1], x[0] * x[1], x[1])});
  });
  const auto l = lower(k, jacobian(2));
  CHECK(l.element_source.find("const bool") == std::string::npos);
  CHECK(l.element_source.find("? 1.0 : 0.0)") != std::string::npos);
  CHECK(l.element_source.find("!= 0.0 ?") != std::string::npos);
}

TEST_CASE("after normalisation a negation is never the operand of arithmetic that absorbs it") {
  const Kernel roe = cfd::roe_flux_kernel(), spring = test::spring_kernel(),
               negations = test::negations_kernel();
  for (const Kernel* kp : {&roe, &spring, &negations}) {
    const Kernel& k = *kp;
    const Mode mode = k.scalar_output() ? Mode::Hessian : Mode::Jacobian;
    const DerivativePlan plan = plan_derivatives(k, mode, 5);
    for (size_t c = 0; c < plan.chunks.size(); ++c) {
      CAPTURE(k.name());
      CAPTURE(c);
      ScalarProgram p = expand_derivatives(k, plan, static_cast<int>(c));
      schedule(p);
      const Graph& g = *p.graph;
      int negations_left = 0;
      for (NodeId id : p.order) {
        const Node& n = g.node(id);
        negations_left += n.op == Op::Neg;
        for (int i = 0; i < op_arity(n.op); ++i) {
          if (g.node(n.operand(i)).op != Op::Neg) continue;
          CAPTURE(id);
          CHECK(n.op != Op::Add);
          CHECK(n.op != Op::Sub);
          CHECK(n.op != Op::Mul);
          CHECK(n.op != Op::Div);
          CHECK(n.op != Op::Abs);
        }
      }
      // Before a store or a one-sided select (the flux had 66 before normalisation at W = 10).
      if (&k == &roe) CHECK(negations_left <= 4);
    }
  }
}
