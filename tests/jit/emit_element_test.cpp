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
#include "support/matches.h"
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

}  // namespace

TEST_CASE("a comparison that only selects read is a bool; one used as a number is 1.0 or 0.0") {
  KernelCache cache(std::nullopt);
  for (bool single : {false, true}) {
    CAPTURE(single);
    const auto l = lower(test::negations_kernel(), jacobian(4, single));
    const std::string& src = l.element_source;
    // select(a < b, ..), select(x0 >= x1, ..), and the conditions of min and max.
    CHECK(test::count_matches(src, std::regex(R"(const bool t\d+ = t\d+ (<|<=|>|>=) t\d+;)")) >= 4);
    CHECK(test::count_matches(src, std::regex(R"(\(t\d+ \? )")) >= 4);
    // (a > c) * b: the comparison is a number.
    CHECK(test::count_matches(src, std::regex(R"(\(t\d+ > t\d+ \? 1\.0 : 0\.0\))")) == 1);
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

TEST_CASE("node-major with late params reads each param just before its first user") {
  // Eight params, each read by two of four sums made one after another: read where expansion
  // made them, all eight are live from the start; read late, a few at a time. Param 7 is also
  // an output of its own.
  const Kernel k("late_params", [](KernelBuilder& kb) {
    auto x = kb.input("x", 1);
    auto p = kb.param("p", 8);
    std::vector<Expr> out;
    for (int s = 0; s < 4; ++s) out.push_back(x[0] * (p[2 * s] + p[(2 * s + 3) % 8]));
    out.push_back(p[7]);
    kb.output("y", out);
  });
  const DerivativePlan plan = plan_derivatives(k, Mode::Jacobian, 0);
  ScalarProgram early = expand_derivatives(k, plan, 0), late = expand_derivatives(k, plan, 0);
  schedule(early, ScheduleKind::NodeMajor);
  schedule(late, ScheduleKind::NodeMajor, true);
  CHECK(max_live_values(late) < max_live_values(early));
  // The same nodes, each once, every operand before its user.
  std::vector<NodeId> a = early.order, b = late.order;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  CHECK(a == b);
  CHECK(std::adjacent_find(b.begin(), b.end()) == b.end());
  const Graph& g = *late.graph;
  std::vector<int> at(g.size(), -1);
  for (size_t i = 0; i < late.order.size(); ++i) at[size_t(late.order[i])] = int(i);
  int params = 0;
  for (size_t i = 0; i < late.order.size(); ++i) {
    const Node& n = g.node(late.order[i]);
    params += n.op == Op::Param;
    for (int o = 0; o < op_arity(n.op); ++o) CHECK(at[size_t(n.operand(o))] < int(i));
  }
  CHECK(params == 8);
}
