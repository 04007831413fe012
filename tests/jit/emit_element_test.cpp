// Element code after normalisation: comparisons that only selects read are C booleans the
// select tests directly, negations are left only where no consumer absorbs them, and the
// result compiles with NVRTC.
#include <doctest/doctest.h>

#include <algorithm>
#include <regex>

#include "jit/cuda_image.h"
#include "jit/emit_element.h"
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

namespace {

// A rate-law-like sum big enough to call its specials out of line: each term an exp of an
// affine argument with constants that are no fp64 immediates, and a select between two
// constants on a comparison of the state (as the NASA polynomials' ranges are).
Kernel many_constants_kernel() {
  return Kernel("many_constants", [](KernelBuilder& kb) {
    const auto x = kb.input("x", 3);
    const Expr log_x = log(x[0]);
    const Expr high = x[0] > 1000.0;
    Expr sum = x[2];
    for (int i = 0; i < 700; ++i) {
      const Expr a = select(high, x[1].constant(1.1 + 0.013 * i), 0.7 - 0.017 * i);
      const Expr arg = (0.01 * i + 0.003) * log_x - a * x[1];
      sum = sum + x[2] * exp(arg);
    }
    kb.output("f", {sum});
  });
}

size_t table_entries(const std::string& src, const std::string& decl) {
  const size_t at = src.find(decl);
  if (at == std::string::npos) return 0;
  return static_cast<size_t>(std::stoul(src.substr(at + decl.size())));
}

}  // namespace

TEST_CASE("large chunks read fp64 constants and constant selects from constant-memory tables") {
  LoweringOptions o;
  o.mode = Mode::Value;
  const auto l = lower(many_constants_kernel(), o);
  REQUIRE(l.statements > kOutlineSpecials);
  const std::string& src = l.element_source;
  const std::string fn = l.symbol + "_c0";
  const size_t values = table_entries(src, "DJ_TABLE double " + fn + "_k[");
  const size_t selects = table_entries(src, "DJ_TABLE double " + fn + "_ks[2][");
  // 700 argument factors and 0.003 (distinct, none an immediate), and 700 selects.
  CHECK(values >= 700);
  CHECK(selects == 700);
  CHECK(count(src, std::regex(fn + R"(_ks\[t\d+ \? 0 : 1\]\[\d+\])")) == 700);
  // Constants with zero low bits are free immediates and stay literal: 1000.0 in the test.
  CHECK(src.find("> 1000.0") != std::string::npos);
  // No statement spells a constant with fraction digits: they are all in the tables.
  CHECK(count(src, std::regex(R"(\n  const double t\d+ = [^;\n]*[ (-]\d+\.\d*[1-9])")) == 0);
  CHECK(l.cuda_source.find("#define DJ_TABLE static __constant__\n") != std::string::npos);
  CHECK(l.host_source.find("#define DJ_TABLE static const\n") != std::string::npos);
  CompileOptions co;
  co.arch = "sm_90";
  KernelCache cache(std::nullopt);
  CHECK(cuda_image(l, co, cache).is_cubin);

  // A small kernel keeps its literals.
  const auto small = lower(test::arrhenius_kernel(), jacobian(0));
  CHECK(small.element_source.find("DJ_TABLE") == std::string::npos);
}

TEST_CASE("the constant tables stop at their byte budget; what does not fit stays literal") {
  LoweringOptions o;
  o.mode = Mode::Value;
  auto l = lower(many_constants_kernel(), o);
  ScalarProgram p = expand_derivatives(many_constants_kernel(), l.plan, 0, true);
  schedule(p, ScheduleKind::LeastLive);
  for (size_t bytes : {size_t{8}, size_t{800}, size_t{8000}}) {
    CAPTURE(bytes);
    const std::string text = emit_element_function(p, "f", 0, false, false, true, bytes);
    const size_t values = table_entries(text, "DJ_TABLE double f_k[");
    const size_t selects = table_entries(text, "DJ_TABLE double f_ks[2][");
    CHECK(8 * (values + 2 * selects) <= bytes);
    CHECK(values + selects > 0);
    // Every select the table lacks is spelled with its two literals.
    CHECK(count(text, std::regex(R"(f_ks\[t\d+ \? 0 : 1\]\[\d+\])")) == selects);
    CHECK(count(text, std::regex(R"(\(t\d+ \? )")) == 700 - selects);
  }
}

TEST_CASE("the large chunks of one module share its constant budget") {
  // Three groups of one output each, every group above kOutlineSpecials, in one launch.
  const Kernel k("three_groups", [](KernelBuilder& kb) {
    const auto x = kb.input("x", 3);
    const Expr log_x = log(x[0]);
    std::vector<Expr> outs;
    for (int g = 0; g < 3; ++g) {
      Expr sum = x[2];
      for (int i = 0; i < 700; ++i) {
        const Expr arg = (0.01 * i + 0.003 * g + 0.0007) * log_x - (1.1 + 0.013 * i) * x[1];
        sum = sum + x[2] * exp(arg);
      }
      outs.push_back(sum);
    }
    kb.output("f", outs);
  });
  LoweringOptions o;
  o.mode = Mode::Value;
  o.rows = 1;
  o.launches = 1;
  const auto l = lower(k, o);
  REQUIRE(l.plan.chunks.size() == 3);
  size_t bytes = 0;
  for (int c = 0; c < 3; ++c) {
    const std::string fn = l.symbol + "_c" + std::to_string(c);
    CHECK(l.chunk_statements[c] > kOutlineSpecials);
    const size_t values = table_entries(l.element_source, "DJ_TABLE double " + fn + "_k[");
    CHECK(values > 0);
    bytes += 8 * values;
  }
  CHECK(bytes <= kConstantTableBytes);
}
