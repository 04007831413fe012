// Assembler::energy_gradient_hessian: the energy, gradient and Hessian of a Newton step at one
// state. Under node-gather and staged-node-gather the Hessian's kernels sum the gradient and the
// energy too (strategies/node_gather.cpp); under the other strategies it is the three calls.
// Each way must equal the three separate outputs, on terms with partial bindings (a vertex
// without inputs: its energy still counts once), single-vertex terms covering every second node,
// projection, both symmetries, and on the GPU the same as the CPU.
#include <doctest/doctest.h>

#include <random>

#include "backends/assembly/assembler.h"
#include "backends/assembly/strategies/in_place_strategy.h"
#include "support/assembly.h"
#include "support/element_problems.h"
#include "support/gpu.h"

using namespace dualjit;
using assembly::ElementStrategy;
using assembly::Problem;

namespace {

assembly::AssemblerOptions with(assembly::Backend backend, ElementStrategy s,
                                jit::HessianProjection projection = {}) {
  assembly::AssemblerOptions o;
  o.backend = backend;
  o.vector_strategy = s == ElementStrategy::StagedNodeGather ? ElementStrategy::NodeGather : s;
  o.matrix_strategy = s;
  o.hessian_projection = projection;
  return o;
}

// The fused result against the three separate calls of the same assembler.
void check_against_separate(assembly::Assembler& a, std::span<const double> x,
                            mesh::Symmetry symmetry) {
  const assembly::EnergyGradientHessian f = a.energy_gradient_hessian(x, symmetry);
  const double e = a.energy(x);
  CHECK(std::abs(f.energy - e) <= 1e-13 * std::abs(e));
  CHECK(test::max_rel(f.gradient, a.gradient(x)) < 1e-13);
  const mesh::BlockCsr<double> h = a.hessian(x, symmetry);
  CHECK(f.hessian.pattern == h.pattern);
  // The same element code and order of additions: equal bit for bit, but for the atomics of
  // element-scatter.
  if (a.options().matrix_strategy == ElementStrategy::Scatter) {
    CHECK(test::max_rel(f.hessian.values, h.values) < 1e-13);
  } else {
    CHECK(f.hessian.values == h.values);
  }
}

void check_strategies(assembly::Backend backend) {
  Problem p = test::energy_problem(70, 41);
  std::mt19937_64 rng(42);
  const auto x = test::uniform(210, -1.0, 1.0, rng);
  for (auto s : {ElementStrategy::NodeGather, ElementStrategy::StagedNodeGather,
                 ElementStrategy::Scatter, ElementStrategy::Gather}) {
    for (auto symmetry : {mesh::Symmetry::General, mesh::Symmetry::Upper}) {
      CAPTURE(assembly::element_strategy_name(s));
      CAPTURE(static_cast<int>(symmetry));
      assembly::Assembler a(p, with(backend, s));
      check_against_separate(a, x, symmetry);
    }
  }
  // Projected: the energy and gradient are not projected, the Hessian is.
  for (auto s : {ElementStrategy::NodeGather, ElementStrategy::StagedNodeGather}) {
    CAPTURE(assembly::element_strategy_name(s));
    assembly::Assembler a(p, with(backend, s, {jit::ProjectionKind::Clamp, 1e-9}));
    check_against_separate(a, x, mesh::Symmetry::General);
  }
}

}  // namespace

TEST_CASE("energy, gradient and Hessian at once equal the three calls (CPU)") {
  check_strategies(assembly::Backend::Cpu);
}

TEST_CASE("fused: repeats are bit-identical, and a problem without energy terms gives zeros") {
  Problem p = test::energy_problem(50, 43);
  std::mt19937_64 rng(44);
  const auto x = test::uniform(150, -1.0, 1.0, rng);
  assembly::Assembler a(p, with(assembly::Backend::Cpu, ElementStrategy::StagedNodeGather));
  const auto f1 = a.energy_gradient_hessian(x), f2 = a.energy_gradient_hessian(x);
  CHECK(f1.energy == f2.energy);
  CHECK(f1.gradient == f2.gradient);
  CHECK(f1.hessian.values == f2.hessian.values);

  Problem v = test::vector_problem(20, 45);
  assembly::Assembler b(v, with(assembly::Backend::Cpu, ElementStrategy::StagedNodeGather));
  const auto z = test::roe_state(20, 46);
  const auto f = b.energy_gradient_hessian(z);
  CHECK(f.energy == 0.0);
  CHECK(f.gradient == std::vector<double>(z.size(), 0.0));
}

TEST_CASE("element-scatter's unit refuses to sum the energy and gradient with the Hessian") {
  Problem p = test::energy_problem(10, 47);
  const auto& unit = assembly::in_place_strategy(ElementStrategy::Scatter);
  CHECK_FALSE(unit.sums_energy_gradient());
  CHECK(assembly::in_place_strategy(ElementStrategy::StagedNodeGather).sums_energy_gradient());
  assembly::InPlaceShape shape{3, 0, 128, nullptr};
  shape.with_energy_gradient = true;
  CHECK_THROWS_WITH_AS(unit.lowering(p.term(0), Mode::Hessian, shape),
                       doctest::Contains("term 'springs': element-scatter sums no energy"),
                       assembly::ProblemError);
}

TEST_SUITE("gpu") {
  TEST_CASE("GPU: energy, gradient and Hessian at once equal the three calls and the CPU" *
            test::needs_gpu()) {
    check_strategies(assembly::Backend::Cuda);
    Problem p = test::energy_problem(3000, 48);
    std::mt19937_64 rng(49);
    const auto x = test::uniform(9000, -1.0, 1.0, rng);
    assembly::Assembler gpu(p, with(assembly::Backend::Cuda, ElementStrategy::StagedNodeGather));
    assembly::Assembler cpu(p, with(assembly::Backend::Cpu, ElementStrategy::StagedNodeGather));
    const auto g = gpu.energy_gradient_hessian(x), c = cpu.energy_gradient_hessian(x);
    CHECK(std::abs(g.energy - c.energy) <= 1e-13 * std::abs(c.energy));
    CHECK(test::max_rel(g.gradient, c.gradient) < 1e-13);
    CHECK(test::max_rel(g.hessian.values, c.hessian.values) < 1e-13);
  }
}
