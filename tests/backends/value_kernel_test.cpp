// Term::value_kernel: a second graph for value-only evaluation. add_term refuses one whose slots
// differ from the kernel's; the assemblies lower it for residuals and energies, and the kernel
// for every derivative. The two kernels here compute different functions (c = 3 and c = 2 times
// the same expression) so that each result shows which graph made it, checked against sums
// written out by hand rather than against another assembly path.
#include <doctest/doctest.h>

#include <cmath>

#include "backends/assembly/problem.h"
#include "support/assembly.h"
#include "support/gpu.h"

using namespace dualjit;
using assembly::Problem;
using assembly::Term;

namespace {

constexpr double kKernelScale = 2, kValueScale = 3;
constexpr int kNodes = 6;
// Edges (v0, v1), with nodes 0 and 3 on more than one edge so that rows sum contributions.
const std::vector<int32_t> kEdges = {0, 1, 1, 2, 2, 3, 3, 0, 3, 4, 5, 0};

// f = c (a0^2 + a1 b0, a1^2 + a0 b1) over edges (a at v0, b at v1), +f to v0 and -f to v1.
Kernel edge_kernel(const std::string& name, double c) {
  return Kernel(name, [c](KernelBuilder& kb) {
    const auto a = kb.input("a", 2), b = kb.input("b", 2);
    kb.output("f", {c * (a[0] * a[0] + a[1] * b[0]), c * (a[1] * a[1] + a[0] * b[1])});
  });
}

// E = c/2 |a - b|^2 s per edge, s a uniform.
Kernel energy_kernel(const std::string& name, double c) {
  return Kernel(name, [c](KernelBuilder& kb) {
    const auto a = kb.input("a", 2), b = kb.input("b", 2);
    const Expr s = kb.uniform("s");
    const Expr d0 = a[0] - b[0], d1 = a[1] - b[1];
    kb.output("energy", 0.5 * c * s * (d0 * d0 + d1 * d1));
  });
}

Term edge_term(bool energy) {
  Term t;
  t.name = energy ? "springs" : "fluxes";
  t.kernel = std::make_shared<Kernel>(energy ? energy_kernel("spring_twice", kKernelScale)
                                             : edge_kernel("flux_twice", kKernelScale));
  t.value_kernel = std::make_shared<Kernel>(energy ? energy_kernel("spring_thrice", kValueScale)
                                                   : edge_kernel("flux_thrice", kValueScale));
  t.elements = {"edges", 2, kEdges};
  t.energy = energy;
  if (energy) {
    t.uniforms = {0.7};
  } else {
    t.output_scatter = {{{0, 1.0}, {1, -1.0}}};
  }
  return t;
}

std::vector<double> state() {
  std::vector<double> x(kNodes * 2);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.3 + 0.17 * i - 0.05 * double(i * i % 7);
  return x;
}

// The residual of edge_kernel with factor c, summed by hand.
std::vector<double> residual_by_hand(const std::vector<double>& x, double c) {
  std::vector<double> r(x.size(), 0.0);
  for (size_t e = 0; e < kEdges.size() / 2; ++e) {
    const double* a = &x[2 * kEdges[2 * e]];
    const double* b = &x[2 * kEdges[2 * e + 1]];
    const double f[2] = {c * (a[0] * a[0] + a[1] * b[0]), c * (a[1] * a[1] + a[0] * b[1])};
    for (int i = 0; i < 2; ++i) {
      r[2 * kEdges[2 * e] + i] += f[i];
      r[2 * kEdges[2 * e + 1] + i] -= f[i];
    }
  }
  return r;
}

// Per edge, df/d(a, b) of edge_kernel with factor c, row-major 2 x 4, cell-major.
std::vector<double> element_blocks_by_hand(const std::vector<double>& x, double c) {
  std::vector<double> out;
  for (size_t e = 0; e < kEdges.size() / 2; ++e) {
    const double* a = &x[2 * kEdges[2 * e]];
    const double* b = &x[2 * kEdges[2 * e + 1]];
    const double block[8] = {2 * c * a[0], c * b[0],     c * a[1], 0,          // row f0
                             c * b[1],     2 * c * a[1], 0,        c * a[0]};  // row f1
    out.insert(out.end(), block, block + 8);
  }
  return out;
}

// The diagonal blocks of the assembled Jacobian: +df/da at v0, -df/db at v1 (2 x 2 each).
std::vector<double> diagonal_by_hand(const std::vector<double>& x, double c) {
  const std::vector<double> blocks = element_blocks_by_hand(x, c);
  std::vector<double> diag(kNodes * 4, 0.0);
  for (size_t e = 0; e < kEdges.size() / 2; ++e) {
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        diag[4 * kEdges[2 * e] + 2 * i + j] += blocks[8 * e + 4 * i + j];
        diag[4 * kEdges[2 * e + 1] + 2 * i + j] -= blocks[8 * e + 4 * i + 2 + j];
      }
    }
  }
  return diag;
}

double energy_by_hand(const std::vector<double>& x, double c) {
  double sum = 0;
  for (size_t e = 0; e < kEdges.size() / 2; ++e) {
    const double d0 = x[2 * kEdges[2 * e]] - x[2 * kEdges[2 * e + 1]];
    const double d1 = x[2 * kEdges[2 * e] + 1] - x[2 * kEdges[2 * e + 1] + 1];
    sum += 0.5 * c * 0.7 * (d0 * d0 + d1 * d1);
  }
  return sum;
}

std::vector<double> gradient_by_hand(const std::vector<double>& x, double c) {
  std::vector<double> g(x.size(), 0.0);
  for (size_t e = 0; e < kEdges.size() / 2; ++e) {
    for (int i = 0; i < 2; ++i) {
      const double d = c * 0.7 * (x[2 * kEdges[2 * e] + i] - x[2 * kEdges[2 * e + 1] + i]);
      g[2 * kEdges[2 * e] + i] += d;
      g[2 * kEdges[2 * e + 1] + i] -= d;
    }
  }
  return g;
}

// Largest difference relative to the largest magnitude of `want`.
double max_rel(std::span<const double> got, std::span<const double> want) {
  double d = 0, s = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    d = std::max(d, std::abs(got[i] - want[i]));
    s = std::max(s, std::abs(want[i]));
  }
  return got.size() == want.size() && s > 0 ? d / s : INFINITY;
}

bool any_symbol_has(const std::vector<assembly::KernelInfo>& kernels, const std::string& part) {
  for (const auto& k : kernels)
    if (k.symbol.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("add_term refuses a value kernel whose slots differ, naming the term and the slot") {
  Problem p(kNodes, 2);
  Term t = edge_term(false);
  const auto refuses = [&](Kernel value, const std::string& slot) {
    Term bad = t;
    bad.value_kernel = std::make_shared<Kernel>(std::move(value));
    CHECK_THROWS_WITH_AS(p.add_term(bad), doctest::Contains("term 'fluxes'"),
                         assembly::ProblemError);
    CHECK_THROWS_WITH_AS(p.add_term(bad), doctest::Contains(("'" + slot + "'").c_str()),
                         assembly::ProblemError);
  };
  // An input of another name, another size, one input more; an output of another size; a
  // param or a uniform the kernel does not have.
  refuses(Kernel("renamed",
                 [](KernelBuilder& kb) {
                   const auto a = kb.input("a", 2), c = kb.input("c", 2);
                   kb.output("f", {a[0] * c[0], a[1] * c[1]});
                 }),
          "c");
  refuses(Kernel("wider",
                 [](KernelBuilder& kb) {
                   const auto a = kb.input("a", 2), b = kb.input("b", 3);
                   kb.output("f", {a[0] * b[2], a[1] * b[1]});
                 }),
          "b");
  refuses(Kernel("more_inputs",
                 [](KernelBuilder& kb) {
                   const auto a = kb.input("a", 2), b = kb.input("b", 2), d = kb.input("d", 2);
                   kb.output("f", {a[0] * b[0] * d[0], a[1] * b[1] * d[1]});
                 }),
          "d");
  refuses(Kernel("longer_output",
                 [](KernelBuilder& kb) {
                   const auto a = kb.input("a", 2), b = kb.input("b", 2);
                   kb.output("f", {a[0], a[1], b[0]});
                 }),
          "f");
  refuses(Kernel("with_param",
                 [](KernelBuilder& kb) {
                   const auto a = kb.input("a", 2), b = kb.input("b", 2);
                   const auto w = kb.param("w", 1);
                   kb.output("f", {w[0] * a[0] * b[0], a[1] * b[1]});
                 }),
          "w");
  refuses(Kernel("with_uniform",
                 [](KernelBuilder& kb) {
                   const auto a = kb.input("a", 2), b = kb.input("b", 2);
                   const Expr u = kb.uniform("u");
                   kb.output("f", {u * a[0] * b[0], a[1] * b[1]});
                 }),
          "u");
  CHECK(p.n_terms() == 0);
  // The same slots: accepted, and kernel_for picks the graph by mode.
  REQUIRE_NOTHROW(p.add_term(t));
  CHECK(p.term(0).kernel_for(Mode::Value).name() == "flux_thrice");
  CHECK(p.term(0).kernel_for(Mode::Jacobian).name() == "flux_twice");
  t.value_kernel.reset();
  CHECK(t.kernel_for(Mode::Value).name() == "flux_twice");
}

namespace {

// Both fused strategies: the residual from the value kernel alone; the split Jacobian and the
// residual made with it from the kernel.
void check_fused_strategies(Problem& p, const std::vector<double>& x,
                            assembly::AssemblerOptions (*on)(const assembly::FusedOptions&)) {
  const std::vector<double> r_value = residual_by_hand(x, kValueScale),
                            r_kernel = residual_by_hand(x, kKernelScale),
                            diag = diagonal_by_hand(x, kKernelScale);
  for (const char* strategy : {"staged-scatter", "gather-by-column"}) {
    CAPTURE(strategy);
    assembly::FusedOptions f;
    f.strategy = strategy;
    assembly::Assembler a(p, on(f));
    CHECK(max_rel(a.residual(x), r_value) < 1e-14);
    CHECK(any_symbol_has(a.kernels(), "flux_thrice"));
    std::vector<double> r;
    const auto j = a.jacobian_split<double>(x, &r);
    CHECK(max_rel(r, r_kernel) < 1e-14);
    CHECK(max_rel(j.diag, diag) < 1e-14);
    CHECK(any_symbol_has(a.kernels(), "flux_twice"));
  }
}

}  // namespace

TEST_CASE(
    "Assembler (CPU): residuals and energies follow the value kernel, derivatives the kernel") {
  const std::vector<double> x = state();
  const std::vector<double> r_value = residual_by_hand(x, kValueScale),
                            blocks = element_blocks_by_hand(x, kKernelScale);
  // The two graphs are told apart.
  REQUIRE(max_rel(r_value, residual_by_hand(x, kKernelScale)) > 0.1);
  Problem p(kNodes, 2);
  p.add_term(edge_term(false));
  check_fused_strategies(p, x, test::on_cpu);
  assembly::Assembler a(p, test::on_cpu());
  CHECK(max_rel(a.element_blocks(0, x), blocks) < 1e-14);
  // The serial host reference (host_element_assembly.h) makes the same choice.
  auto serial = test::serial(p);
  CHECK(max_rel(serial.residual(x), r_value) < 1e-14);
  CHECK(max_rel(serial.element_jacobians(0, x), blocks) < 1e-14);

  Problem s(kNodes, 2);
  s.add_term(edge_term(true));
  assembly::Assembler e(s, test::on_cpu());
  CHECK(e.energy(x) == doctest::Approx(energy_by_hand(x, kValueScale)).epsilon(1e-14));
  CHECK(max_rel(e.gradient(x), gradient_by_hand(x, kKernelScale)) < 1e-14);
  CHECK(test::serial(s).energy(x) ==
        doctest::Approx(energy_by_hand(x, kValueScale)).epsilon(1e-14));
  CHECK(max_rel(test::serial(s).gradient(x), gradient_by_hand(x, kKernelScale)) < 1e-14);
}

TEST_SUITE("gpu") {
  TEST_CASE(
      "Assembler (GPU): residuals and energies follow the value kernel, derivatives the kernel" *
      test::needs_gpu()) {
    const std::vector<double> x = state();
    const std::vector<double> blocks = element_blocks_by_hand(x, kKernelScale);
    Problem p(kNodes, 2);
    p.add_term(edge_term(false));
    check_fused_strategies(p, x, test::on_gpu);
    assembly::Assembler a(p, test::on_gpu());
    for (auto order : {assembly::BlockOrder::CellMajor, assembly::BlockOrder::ComponentMajor}) {
      const std::vector<double> got = a.element_blocks(0, x, order);
      REQUIRE(got.size() == blocks.size());
      const size_t n = kEdges.size() / 2;
      std::vector<double> cell_major(got.size());
      for (size_t c = 0; c < n; ++c)
        for (size_t i = 0; i < 8; ++i)
          cell_major[c * 8 + i] =
              order == assembly::BlockOrder::CellMajor ? got[c * 8 + i] : got[i * n + c];
      CHECK(max_rel(cell_major, blocks) < 1e-14);
    }

    Problem s(kNodes, 2);
    s.add_term(edge_term(true));
    assembly::Assembler e(s, test::on_gpu());
    CHECK(e.energy(x) == doctest::Approx(energy_by_hand(x, kValueScale)).epsilon(1e-14));
    CHECK(max_rel(e.gradient(x), gradient_by_hand(x, kKernelScale)) < 1e-14);
  }
}
