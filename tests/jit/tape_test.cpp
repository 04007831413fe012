// tape() (dsl/expr.h): intermediates whose value and tangent a first-order Jacobian computes
// once per element and reads back. The pattern, the plan and the launches here; that the
// results are exact: tests/backends/cpu_kernel_test.cpp (against the reference evaluator) and
// cuda_kernel_test.cpp (the GPU).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "jit/cuda_image.h"
#include "jit/element_driver.h"
#include "jit/lowering.h"
#include "support/head_values.h"
#include "support/node_values.h"
#include "support/test_kernels.h"

using namespace dualjit;
using namespace dualjit::jit;

TEST_CASE("a tape's components: the inputs and the cuts its operand is computed through") {
  const Kernel k = test::tape_kernel(true);
  const TapePattern p = tape_pattern(k);
  REQUIRE(p.tapes.size() == 8);  // seven reactions and the tape of a tape
  REQUIRE(p.heads.size() == 8);
  // Reaction 0, kf c0 c1 - kr c2 with c_k = s y_(k+1), reads T, y1, y2, y3 and the density
  // cut; a polynomial in the y's and the cut, so it stores T's component alone and derives
  // the others from its head's leaves: kf, kr, s, y1, y2, y3.
  const std::vector<TapeEntry>& r0 = p.entries[0];
  REQUIRE(r0.size() == 1);
  CHECK(r0[0].input == 0);
  const TapeHead& h0 = p.heads[0];
  REQUIRE(h0.factored());
  REQUIRE(h0.derived.size() == 4);
  for (int i = 0; i < 3; ++i) CHECK(h0.derived[size_t(i)].direction.input == i + 1);
  CHECK(h0.derived[3].direction.input == -1);
  CHECK(k.graph().node(h0.derived[3].direction.cut).op == Op::Cut);
  for (const TapeDerived& d : h0.derived) {
    const NodeId leaf = p.leaves.at(size_t(d.leaf));
    CHECK(k.graph().node(leaf).op == (d.direction.input >= 0 ? Op::Input : Op::Cut));
  }
  // The tape of a tape, through q_0's own tangent, x2 and c4 (y5): only y5 could be derived,
  // through three leaves' values: stored whole, every component.
  const std::vector<TapeEntry>& r7 = p.entries[7];
  CHECK_FALSE(p.heads[7].factored());
  CHECK(r7.size() == 6);
  CHECK(std::none_of(r7.begin(), r7.end(), [](const TapeEntry& e) { return e.input == 4; }));
  // Each tape's value, then its stored components; then the leaves.
  int64_t at = 0;
  for (size_t t = 0; t < p.tapes.size(); ++t) {
    CHECK(p.offset[t] == at);
    at += 1 + static_cast<int64_t>(p.entries[t].size());
  }
  CHECK(p.leaf_offset == at);
  CHECK(p.size == at + static_cast<int64_t>(p.leaves.size()));
  CHECK(tape_doubles(p, 33) == 64 * p.size);  // whole tiles
  CHECK(tape_pattern(test::tape_kernel(false)).empty());
}

TEST_CASE("a factored tape's derived components are its operand's partials") {
  // With s = 1 / (y1 + .. + y5) the cut, d q / d y_k = (partial at fixed s) + (d q / d s)
  // (-s^2): both derived, against central differences of q's value, at random states.
  const Kernel k = test::tape_kernel(true);
  const TapePattern p = tape_pattern(k);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> y(0.1, 1.0), T(900.0, 1500.0), c(0.5, 2.0);
  double worst = 0;
  int checked = 0;
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> x{T(rng), y(rng), y(rng), y(rng), y(rng), y(rng)};
    const std::vector<double> coef{c(rng), c(rng)};
    const std::vector<double> v = test::node_values(k, x, coef, {});
    double sum = 0;
    for (int i = 1; i <= 5; ++i) sum += x[size_t(i)];
    const double s = 1.0 / sum;
    for (size_t t = 0; t < p.tapes.size(); ++t) {
      const TapeHead& h = p.heads[t];
      if (!h.factored()) continue;
      const auto derived = [&](size_t component) {
        return test::derived_value(h, int(component),
                                   [&](int leaf) { return v[size_t(p.leaves[size_t(leaf)])]; });
      };
      double d_cut = 0;
      for (size_t j = 0; j < h.derived.size(); ++j)
        if (h.derived[j].direction.input < 0) d_cut = derived(j);
      for (size_t j = 0; j < h.derived.size(); ++j) {
        const TapeDerived& d = h.derived[j];
        if (d.direction.input < 0) continue;
        const int i = d.direction.input;
        const double step = 1e-6 * x[size_t(i)];
        std::vector<double> up = x, down = x;
        up[size_t(i)] += step;
        down[size_t(i)] -= step;
        const NodeId q = k.graph().node(p.tapes[t]).a;
        const double fd = (test::node_values(k, up, coef, {})[size_t(q)] -
                           test::node_values(k, down, coef, {})[size_t(q)]) /
                          (2 * step);
        const double got = derived(j) + d_cut * (-s * s);
        worst = std::max(worst, std::abs(got - fd) / std::max(1e-3, std::abs(fd)));
        ++checked;
      }
    }
  }
  CHECK(checked == 5 * 7 * 3);
  CHECK(worst < 1e-7);
}

TEST_CASE("tapes are kept by first-order Jacobians of the element-local driver alone") {
  const Kernel k = test::tape_kernel(true);
  LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.rows = 2;
  const LoweredKernel kept = lower(k, o);
  CHECK(kept.tape_size == tape_pattern(k).size);
  CHECK(kept.writes_tape);
  // ptxas computed tapes wrong where it could contract them (jit/cuda_image.cpp): none here,
  // while the driver's own flags still allow it.
  CHECK(kept.compile.fused_multiply_add);
  CHECK_FALSE(default_compile_options(kept, "sm_90").fused_multiply_add);
  CHECK(kept.symbol.find("_tp") != std::string::npos);
  REQUIRE(kept.plan.chunks.size() == 5);  // the tape chunk and 7 rows in groups of 2
  CHECK(kept.plan.chunks.front().tape);
  CHECK(kept.plan.chunks.front().directions.size() == 6);
  CHECK(kept.args.find("tape") != nullptr);
  CHECK(kept.element_source.find("double* tp = a.tape + (e / 32) * ") != std::string::npos);
  // The rows read every tape where the plain kernel recomputes each one in every group.
  const LoweredKernel plain = lower(test::tape_kernel(false), o);
  MESSAGE("flops with tapes " << kept.ops.flops() << ", without " << plain.ops.flops());
  CHECK(kept.ops.flops() < plain.ops.flops());
  // Not kept: values, unpruned, two threads an element (chunks in different warps).
  std::vector<LoweringOptions> others(3, o);
  others[0].mode = Mode::Value;
  others[0].rows = 0;
  others[1].prune = false;
  others[2].layout.threads_per_element = 2;
  for (const LoweringOptions& other : others) {
    const LoweredKernel l = lower(k, other);
    CAPTURE(l.symbol);
    CHECK(l.tape_size == 0);
    CHECK(l.args.find("tape") == nullptr);
    CHECK(std::none_of(l.plan.chunks.begin(), l.plan.chunks.end(),
                       [](const Chunk& c) { return c.tape; }));
  }
}

TEST_CASE("NVRTC compiles a kernel with tapes, whole and in launches") {
  const Kernel k = test::tape_kernel(true);
  LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.rows = 1;
  o.launches = 3;
  o.first_stores = FirstStores::Staged;
  CompileOptions co;
  co.arch = "sm_90";
  KernelCache cache(std::nullopt);
  for (const LoweredKernel& l : lower_launches(k, o)) {
    CAPTURE(l.symbol);
    CHECK(cuda_image(l, co, cache).is_cubin);
    // The rows' launches contract, the tapes' does not.
    CHECK(default_compile_options(l, co.arch).fused_multiply_add == !l.writes_tape);
    // The rows' launches run their chunks side by side, a block each for each 128 elements;
    // the tapes' launch, whose chunk every other reads, alone.
    const int side = l.writes_tape ? 1 : static_cast<int>(l.plan.chunks.size());
    CHECK(l.launch.blocks_per_item_block == side);
    CHECK((l.symbol.find("_sb") != std::string::npos) == !l.writes_tape);
    if (!l.writes_tape) {
      CHECK(l.plan.chunks.size() > 1);
      CHECK(l.cuda_source.find("blockIdx.x % " + std::to_string(side)) != std::string::npos);
    }
  }
  // One launch: the tape chunk and the rows in order on each element's thread, never side by
  // side (a row would read tapes another block has not written).
  o.launches = 1;
  const LoweredKernel whole = lower_launches(k, o).front();
  CHECK(whole.writes_tape);
  CHECK(whole.launch.blocks_per_item_block == 1);
  CHECK(whole.symbol.find("_sb") == std::string::npos);
  o.first_stores = FirstStores::Direct;
  o.max_statements_per_function = 20;  // in pieces: the tape pointer passes through them
  const LoweredKernel pieces = lower(k, o);
  CHECK(pieces.element_source.find("_s1(x, v, p, u, val, d1, d2, tp, s)") != std::string::npos);
  CHECK(cuda_image(pieces, co, cache).is_cubin);
}
