#include <doctest/doctest.h>

#include "dsl/reference_evaluator.h"

using namespace dualjit;

namespace {

void spring(KernelBuilder& kb) {
  auto xa = kb.input_vec<3>("xa");
  auto xb = kb.input_vec<3>("xb");
  auto rest = kb.param("rest", 1);
  Expr k = kb.uniform("stiffness");
  Expr d = norm(xa - xb) - rest[0];
  kb.output("energy", 0.5 * k * d * d);
}

}  // namespace

TEST_CASE("slots are laid out flat per kind, in declaration order") {
  const Kernel k("spring", spring);
  CHECK(k.n_inputs() == 6);
  CHECK(k.n_params() == 1);
  CHECK(k.n_uniforms() == 1);
  CHECK(k.n_outputs() == 1);
  CHECK(k.scalar_output());
  CHECK(k.slot("xb").offset == 3);
  CHECK(k.slot("xb").kind == SlotKind::Input);
  CHECK(k.slot_index("xb") == 1);
  CHECK(k.slots_of(SlotKind::Input).size() == 2);
  CHECK_THROWS_WITH_AS(k.slot("nope"), doctest::Contains("spring"), DslError);
  CHECK(k.dump().find("input xb[3] at 3") != std::string::npos);
}

TEST_CASE("the content hash is stable and sensitive") {
  const Kernel a("spring", spring), b("spring", spring);
  CHECK(a.hash() == b.hash());
  CHECK(a.hash().size() == 64);
  const Kernel renamed("spring2", spring);
  CHECK(renamed.hash() != a.hash());
  const Kernel changed("spring", [](KernelBuilder& kb) {
    auto xa = kb.input_vec<3>("xa");
    auto xb = kb.input_vec<3>("xb");
    auto rest = kb.param("rest", 1);
    Expr k = kb.uniform("stiffness");
    Expr d = norm(xa - xb) - rest[0];
    kb.output("energy", 0.25 * k * d * d);
  });
  CHECK(changed.hash() != a.hash());
  // Pinned: the hash must not depend on addresses or on the process.
  const Kernel tiny("tiny", [](KernelBuilder& kb) {
    auto x = kb.input("x", 1);
    kb.output("y", sin(x[0]) * 2.0);
  });
  CHECK(tiny.hash() == Kernel("tiny", [](KernelBuilder& kb) {
                         auto x = kb.input("x", 1);
                         kb.output("y", sin(x[0]) * 2.0);
                       }).hash());
}

TEST_CASE("misuse raises DslError naming kernel and slot") {
  CHECK_THROWS_WITH_AS(Kernel("k", [](KernelBuilder& kb) { kb.input("x", 2); }),
                       doctest::Contains("no output"), DslError);
  CHECK_THROWS_WITH_AS(Kernel("k",
                              [](KernelBuilder& kb) {
                                auto x = kb.input("x", 2);
                                kb.param("x", 1);
                                kb.output("y", x[0]);
                              }),
                       doctest::Contains("param 'x': duplicate"), DslError);
  CHECK_THROWS_WITH_AS(Kernel("k",
                              [](KernelBuilder& kb) {
                                auto x = kb.input("x", 2);
                                kb.output("y", {x[0], Expr()});
                              }),
                       doctest::Contains("output 'y': component 1 is unset"), DslError);
  CHECK_THROWS_WITH_AS(Kernel("k", [](KernelBuilder& kb) { kb.input("x", 0); }),
                       doctest::Contains("input 'x': size must be positive"), DslError);
  CHECK_THROWS_WITH_AS(Kernel("k",
                              [](KernelBuilder& kb) {
                                auto x = kb.input("x", 1);
                                kb.output("y", x[0] * NAN);
                              }),
                       doctest::Contains("kernel"), DslError);
  const Kernel other("other", [](KernelBuilder& kb) { kb.output("y", kb.input("x", 1)[0]); });
  const Expr foreign(const_cast<Graph*>(&other.graph()), other.outputs()[0]);
  CHECK_THROWS_WITH_AS(Kernel("mine",
                              [&](KernelBuilder& kb) {
                                auto x = kb.input("x", 1);
                                kb.output("y", {x[0], foreign});
                              }),
                       doctest::Contains("another graph (kernel 'other')"), DslError);
  CHECK_THROWS_WITH_AS(Kernel("mine",
                              [&](KernelBuilder& kb) {
                                auto x = kb.input("x", 1);
                                kb.output("y", x[0] + foreign);
                              }),
                       doctest::Contains("two graphs"), DslError);
}

TEST_CASE("evaluator rejects wrong slot sizes, naming kernel and slots") {
  const Kernel k("spring", spring);
  const std::vector<double> x(5, 0.5), p(1, 1.0), u(1, 2.0);
  CHECK_THROWS_WITH_AS(evaluate_values(k, {x, p, u}),
                       doctest::Contains("kernel 'spring': expected 6 input components (xa[3], "
                                         "xb[3]), got 5"),
                       DslError);
  const std::vector<double> x6(6, 0.5), p2(2, 1.0);
  CHECK_THROWS_WITH_AS(evaluate_values(k, {x6, p2, u}), doctest::Contains("rest[1]"), DslError);
  const Kernel vec("vec", [](KernelBuilder& kb) {
    auto x = kb.input("x", 2);
    kb.output("y", {x[0], x[1]});
  });
  const std::vector<double> x2(2, 0.5);
  CHECK_THROWS_WITH_AS(evaluate_hessian(vec, {x2, {}, {}}), doctest::Contains("scalar output"),
                       DslError);
}

TEST_CASE("Vec conveniences") {
  const Kernel k("vec", [](KernelBuilder& kb) {
    auto a = kb.input_vec<3>("a");
    auto b = kb.input_vec<3>("b");
    auto c = cross(a, b);
    auto n = normalized(a);
    kb.output("out",
              {dot(a, b), c[0], c[1], c[2], norm(a), n[0] * n[0] + n[1] * n[1] + n[2] * n[2]});
  });
  const std::vector<double> x = {0.3, -1.2, 2.0, 1.5, 0.7, -0.4};
  const auto v = evaluate_values(k, {x, {}, {}});
  CHECK(v[0] == doctest::Approx(0.3 * 1.5 - 1.2 * 0.7 - 2.0 * 0.4));
  CHECK(v[1] == doctest::Approx(-1.2 * -0.4 - 2.0 * 0.7));
  CHECK(v[2] == doctest::Approx(2.0 * 1.5 - 0.3 * -0.4));
  CHECK(v[3] == doctest::Approx(0.3 * 0.7 - -1.2 * 1.5));
  CHECK(v[4] == doctest::Approx(std::sqrt(0.09 + 1.44 + 4.0)));
  CHECK(v[5] == doctest::Approx(1.0));
}
