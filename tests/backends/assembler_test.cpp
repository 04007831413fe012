// The Assembler on the CPU backend: every output equals the serial reference, the split
// Jacobian equals the general one, misuse names the call. (The CUDA backend: fused_assembly_test
// and device_element_assembly_test.)
#include <doctest/doctest.h>

#include <random>

#include "backends/assembly/assembler.h"
#include "support/assembly.h"
#include "support/element_problems.h"
#include "support/test_kernels.h"

using namespace dualjit;
using assembly::Problem;
using assembly::Term;

namespace {

// Springs (an energy) and Roe edges (a vector term) over one 5-wide field would not type-check
// (slot widths), so two problems.
Problem springs(int64_t n, std::mt19937_64& rng) {
  Problem p(n, 3);
  Term t;
  t.name = "springs";
  t.kernel = std::make_shared<Kernel>(test::spring_kernel());
  t.elements = test::random_edges(n, 4 * n, rng);
  t.energy = true;
  std::uniform_real_distribution<double> len(0.5, 1.5);
  for (int64_t e = 0; e < 4 * n; ++e) t.params.push_back(len(rng));
  t.uniforms = {30.0};
  p.add_term(std::move(t));
  return p;
}

Problem roe_edges(int64_t n, std::mt19937_64& rng) {
  Problem p(n, 5);
  Term t;
  t.name = "interior";
  t.kernel = std::make_shared<Kernel>(cfd::roe_flux_kernel());
  t.elements = test::random_edges(n, 3 * n, rng);
  t.output_scatter = {{{0, 1.0}, {1, -1.0}}};
  std::uniform_real_distribution<double> a(-1.0, 1.0);
  for (int64_t e = 0; e < 3 * n * 3; ++e) t.params.push_back(a(rng));
  t.uniforms = {1.4};
  p.add_term(std::move(t));
  return p;
}

std::vector<double> random_values(size_t n, std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

double max_rel(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, s = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    d = std::max(d, std::abs(a[i] - b[i]));
    s = std::max(s, std::abs(b[i]));
  }
  return a.size() == b.size() && s > 0 ? d / s : INFINITY;
}

}  // namespace

TEST_CASE("Assembler (CPU): energy outputs equal the serial reference") {
  std::mt19937_64 rng(71);
  Problem p = springs(30, rng);
  const auto x = random_values(90, rng, -1.0, 1.0), v = random_values(90, rng, -1.0, 1.0);
  assembly::Assembler a(p, test::on_cpu());
  CHECK(a.backend() == assembly::Backend::Cpu);
  auto ref = test::serial(p);
  CHECK(a.energy(x) == doctest::Approx(ref.energy(x)).epsilon(1e-14));
  CHECK(max_rel(a.gradient(x), ref.gradient(x)) < 1e-14);
  CHECK(max_rel(a.hvp(x, v), ref.hvp(x, v)) < 1e-14);
  for (auto sym : {mesh::Symmetry::General, mesh::Symmetry::Upper}) {
    const auto h = a.hessian(x, sym), hr = ref.hessian(x, sym);
    CHECK(h.pattern == hr.pattern);  // the problem's one pattern per symmetry
    CHECK(max_rel(h.values, hr.values) < 1e-14);
  }
}

TEST_CASE("Assembler (CPU): residual, split and general Jacobian, element blocks") {
  std::mt19937_64 rng(72);
  Problem p = roe_edges(40, rng);
  std::vector<double> q(200);
  const auto data = test::data_for("roe_flux");
  for (int64_t i = 0; i < 40; ++i)
    for (int c = 0; c < 5; ++c) q[i * 5 + c] = data.input(c, rng);
  auto ref = test::serial(p);
  for (const char* strategy : {"staged-scatter", "gather-by-column"}) {
    CAPTURE(strategy);
    assembly::FusedOptions f;
    f.strategy = strategy;  // staged-scatter runs as its host form here
    assembly::Assembler a(p, test::on_cpu(f));
    CHECK(max_rel(a.residual(q), ref.residual(q)) < 1e-13);
    std::vector<double> r;
    const auto j = a.jacobian_split<double>(q, &r);
    const auto jr = ref.jacobian_split<double>(q);
    CHECK(max_rel(r, ref.residual(q)) < 1e-13);
    CHECK(max_rel(j.diag, jr.diag) < 1e-13);
    CHECK(max_rel(j.off.values, jr.off.values) < 1e-13);
    CHECK(!a.kernels().empty());
    CHECK(a.kernels()[0].symbol.find(std::string(strategy) == "gather-by-column"
                                         ? "_gc64"
                                         : "_sa64") != std::string::npos);
  }
  assembly::Assembler a(p, test::on_cpu());
  CHECK(max_rel(a.jacobian(q).values, ref.jacobian(q).values) < 1e-14);
  for (auto order : {assembly::BlockOrder::CellMajor, assembly::BlockOrder::ComponentMajor,
                     assembly::BlockOrder::CellMajorColumns})
    CHECK(max_rel(a.element_blocks(0, q, order), ref.element_jacobians(0, q, order)) < 1e-14);
  // Sparse blocks are pattern values in CSR order: no column-major form.
  CHECK_THROWS_WITH_AS(a.element_sparse_blocks(0, q, assembly::BlockOrder::CellMajorColumns),
                       doctest::Contains("element_sparse_blocks"), assembly::ProblemError);
}

TEST_CASE("Assembler: misuse names the call") {
  std::mt19937_64 rng(73);
  Problem p = springs(10, rng);
  assembly::Assembler a(p, test::on_cpu());
  CHECK_THROWS_WITH_AS(a.run_gradient(), doctest::Contains("run_gradient"), assembly::ProblemError);
  CHECK_THROWS_WITH_AS(a.state_device(), doctest::Contains("CUDA backend"), assembly::ProblemError);
  CHECK_THROWS_WITH_AS(a.gradient(std::vector<double>(7)), doctest::Contains("state has 7 values"),
                       assembly::ProblemError);
  CHECK_THROWS_WITH_AS(a.element_blocks(3, std::vector<double>(30)), doctest::Contains("term #3"),
                       assembly::ProblemError);
  p.add_term(Term(p.term(0)));  // after the assembler was built
  CHECK_THROWS_WITH_AS(a.gradient(std::vector<double>(30)),
                       doctest::Contains("2 terms, 1 when the assembler was built"),
                       assembly::ProblemError);
}
