// The CPU backend runs exactly the element code the GPU runs; it must equal the reference
// evaluator for every example kernel, mode and width, pruned or not.
#include <doctest/doctest.h>

#include "backends/cpu/cpu_kernel.h"
#include "support/element_problem.h"
#include "support/random_kernel.h"

using namespace dualjit;

namespace {

// `reference`: the kernel the reference evaluator runs, when not `k` itself.
void check_against_reference(const Kernel& k, Mode mode, int width, bool prune = true,
                             uint64_t seed = 1, std::vector<int> binding = {},
                             size_t max_statements = 0, const Kernel* reference = nullptr,
                             int rows = 0) {
  jit::LoweringOptions o;
  o.mode = mode;
  o.width = width;
  o.rows = rows;
  o.prune = prune;
  o.input_vertex = binding;
  o.max_statements_per_function = max_statements;
  const cpu::CpuKernel ck(jit::lower(k, o));
  const auto& l = ck.lowered();
  CAPTURE(l.symbol);
  const auto pr = test::make_problem(k, l, 257, seed);
  test::HostOutputs out;
  ck.run(test::host_args(pr, l, out).args());
  const BatchResult ref = evaluate_batch(reference ? *reference : k, mode, pr.batch, width);
  CHECK(test::max_rel_err(out.values, ref.values) < 1e-13);
  CHECK(test::max_rel_err(out.first, ref.first) < 1e-13);
  CHECK(test::max_rel_err(out.second, ref.second) < 1e-13);
}

// k's dense and sparse Jacobians under o (sparse_jacobian set here) on the same random
// elements: the sparse values must be the dense ones at the pattern's positions, the dense
// ones zero elsewhere, and the values equal.
struct SparseAgainstDense {
  jit::JacobianPattern pattern;
  bool same = true, zeros_outside = true, values_equal = false;
};

SparseAgainstDense sparse_against_dense(const Kernel& k, jit::LoweringOptions o, int n,
                                        uint64_t seed) {
  o.mode = Mode::Jacobian;
  o.sparse_jacobian = false;
  const cpu::CpuKernel dense(jit::lower(k, o));
  o.sparse_jacobian = true;
  const cpu::CpuKernel sparse(jit::lower(k, o));
  const auto pr = test::make_problem(k, dense.lowered(), n, seed);
  test::HostOutputs d, s;
  dense.run(test::host_args(pr, dense.lowered(), d).args());
  sparse.run(test::host_args(pr, sparse.lowered(), s).args());
  SparseAgainstDense r;
  r.pattern = sparse.lowered().first_pattern;
  const jit::JacobianPattern& p = r.pattern;
  const int n_in = k.n_inputs(), n_out = k.n_outputs();
  REQUIRE(s.first.size() == size_t(pr.batch.n_elements * p.nnz()));
  for (int64_t e = 0; e < pr.batch.n_elements; ++e) {
    for (int row = 0; row < n_out; ++row) {
      for (int c = 0; c < n_in; ++c) {
        const double v = d.first[(e * n_out + row) * n_in + c];
        const int64_t at = p.index(row, c);
        if (at < 0) {
          r.zeros_outside = r.zeros_outside && v == 0.0;
        } else {
          r.same = r.same && s.first[e * p.nnz() + at] == v;
        }
      }
    }
  }
  r.values_equal = s.values == d.values;
  return r;
}

}  // namespace

TEST_CASE("CPU backend equals the reference: Roe flux Jacobian at W = 1, 2, 3, 5, n") {
  const Kernel roe = cfd::roe_flux_kernel();
  for (int w : {1, 2, 3, 5, 10}) check_against_reference(roe, Mode::Jacobian, w);
  check_against_reference(roe, Mode::Value, 0);
  check_against_reference(roe, Mode::Jacobian, 5, /*prune=*/false);
  // QL and QR gathered the other way round.
  check_against_reference(roe, Mode::Jacobian, 4, true, 2, {1, 0});
}

TEST_CASE("CPU backend equals the reference: spring Hessian, HVP and gradient") {
  const Kernel spring = test::spring_kernel();
  for (int w : {1, 2, 3, 6}) check_against_reference(spring, Mode::Hessian, w);
  for (int w : {1, 6}) check_against_reference(spring, Mode::Hvp, w);
  check_against_reference(spring, Mode::Gradient, 2);
  check_against_reference(spring, Mode::Hessian, 2, /*prune=*/false);
}

TEST_CASE("CPU backend equals the reference: Arrhenius rates") {
  const Kernel rate = test::arrhenius_kernel();
  for (int w : {1, 2, 3, 4}) check_against_reference(rate, Mode::Jacobian, w);
}

TEST_CASE("CPU backend equals the reference with cuts: every mode and width, nested cuts") {
  // The reference evaluator differentiates straight through a cut; the JIT gives it a
  // direction and composes at the outputs: the two must agree.
  const Kernel rates = test::cut_kernel(true), energy = test::cut_kernel(true, true);
  for (int w : {1, 2, 4, 0}) check_against_reference(rates, Mode::Jacobian, w);
  check_against_reference(rates, Mode::Jacobian, 3, /*prune=*/false);
  check_against_reference(rates, Mode::Value, 0);
  for (int w : {1, 0}) check_against_reference(energy, Mode::Gradient, w);
  check_against_reference(energy, Mode::Hessian, 2);
  check_against_reference(energy, Mode::Hvp, 0);
  // And against the same math without cuts.
  const Kernel plain = test::cut_kernel(false);
  check_against_reference(rates, Mode::Jacobian, 0, true, 5, {}, 0, &plain);
}

TEST_CASE("CPU backend equals the reference in row groups: every output once, every width") {
  // Each chunk stores only its group's rows: together they must be the whole Jacobian.
  const Kernel roe = cfd::roe_flux_kernel(), rates = test::cut_kernel(true);
  for (int rows : {1, 2, 3}) {
    CAPTURE(rows);
    for (int w : {0, 4})
      check_against_reference(roe, Mode::Jacobian, w, true, 3, {}, 0, nullptr, rows);
    check_against_reference(roe, Mode::Value, 0, true, 3, {}, 0, nullptr, rows);
    for (int w : {0, 2})
      check_against_reference(rates, Mode::Jacobian, w, true, 4, {}, 0, nullptr, rows);
  }
}

TEST_CASE("CPU backend: row groups whose cone leaves out a cut, dense and sparse") {
  // y0 never reaches the cut; y1 reads it through y2's value: the groups see different cuts.
  const Kernel k("partial_cut", [](KernelBuilder& kb) {
    auto x = kb.input("x", 4);
    const Expr c = cut(x[0] + x[1] * x[2]);
    kb.output("y", {x[0] * x[1] + exp(x[2]), c * x[3] + sin(c), x[3] * x[0]});
  });
  for (int rows : {1, 2}) {
    CAPTURE(rows);
    check_against_reference(k, Mode::Jacobian, 0, true, 8, {}, 0, nullptr, rows);
    // Unpruned, every node carries every cut's component, zeros for the cuts it never reached.
    check_against_reference(k, Mode::Jacobian, 0, false, 8, {}, 0, nullptr, rows);
    jit::LoweringOptions o;
    o.rows = rows;
    const SparseAgainstDense r = sparse_against_dense(k, o, 31, 8);
    CHECK(r.pattern.nnz() == 9);  // y0: x0 x1 x2; y1: x0 x1 x2 x3; y2: x0 x3
    CHECK(r.same);
    CHECK(r.zeros_outside);
    CHECK(r.values_equal);
  }
}

TEST_CASE("CPU backend: a kernel split into launches stores what the whole kernel stores") {
  // Every launch writes its chunk range's rows into the common outputs, which start as NaN:
  // an entry no launch stores stays NaN and fails the comparison.
  const Kernel roe = cfd::roe_flux_kernel(), rates = test::cut_kernel(true);
  for (const Kernel* k : {&roe, &rates}) {
    for (Mode mode : {Mode::Value, Mode::Jacobian}) {
      for (bool sparse : {false, true}) {
        if (sparse && mode != Mode::Jacobian) continue;
        CAPTURE(k->name());
        CAPTURE(mode_name(mode));
        CAPTURE(sparse);
        jit::LoweringOptions o;
        o.mode = mode;
        o.rows = 1;
        o.launches = 3;
        o.sparse_jacobian = sparse;
        const std::vector<jit::LoweredKernel> parts = jit::lower_launches(*k, o);
        REQUIRE(parts.size() == 3);
        std::vector<cpu::CpuKernel> launches;
        for (const jit::LoweredKernel& l : parts) launches.emplace_back(l);
        o.launches = 1;
        const cpu::CpuKernel whole(jit::lower(*k, o));
        const auto pr = test::make_problem(*k, whole.lowered(), 97, 5);
        test::HostOutputs split, one;
        const jit::ArgValues args = test::host_args(pr, parts[0], split).args();
        for (const cpu::CpuKernel& l : launches) l.run(args);
        whole.run(test::host_args(pr, whole.lowered(), one).args());
        CHECK(test::max_rel_err(split.values, one.values) < 1e-13);
        CHECK(test::max_rel_err(split.first, one.first) < 1e-13);
      }
    }
  }
}

TEST_CASE("CPU backend: staged first derivatives are the direct stores' blocks, in either order") {
  // Whole, in row groups and split into launches (each launch stages its own chunks' ranges
  // of the common outputs), dense and sparse: the same code but for where d1 goes.
  const Kernel roe = cfd::roe_flux_kernel(), rates = test::cut_kernel(true);
  for (const Kernel* k : {&roe, &rates}) {
    for (int rows : {0, 1, 2}) {
      for (bool sparse : {false, true}) {
        for (jit::FirstStores stores :
             {jit::FirstStores::Staged, jit::FirstStores::StagedComponentMajor}) {
          CAPTURE(k->name());
          CAPTURE(rows);
          CAPTURE(sparse);
          CAPTURE(static_cast<int>(stores));
          jit::LoweringOptions o;
          o.mode = Mode::Jacobian;
          o.rows = rows;
          o.sparse_jacobian = sparse;
          const cpu::CpuKernel direct(jit::lower(*k, o));
          o.first_stores = stores;
          o.launches = rows == 1 ? 3 : 1;
          const std::vector<jit::LoweredKernel> parts = jit::lower_launches(*k, o);
          REQUIRE(parts.size() == (rows == 1 ? 3u : 1u));
          std::vector<cpu::CpuKernel> staged;
          for (const jit::LoweredKernel& l : parts) {
            REQUIRE(l.options.first_stores == stores);
            staged.emplace_back(l);
          }
          const auto pr = test::make_problem(*k, direct.lowered(), 97, 3);
          test::HostOutputs a, b;
          direct.run(test::host_args(pr, direct.lowered(), a).args());
          const jit::ArgValues args = test::host_args(pr, parts[0], b).args();
          for (const cpu::CpuKernel& l : staged) l.run(args);
          CHECK(b.values == a.values);
          if (stores == jit::FirstStores::Staged) {
            CHECK(b.first == a.first);
            continue;
          }
          // Component-major: entry i of element e at i * n + e.
          const int64_t n = pr.n_elements, fs = static_cast<int64_t>(direct.lowered().first_size);
          REQUIRE(b.first.size() == a.first.size());
          bool same = true;
          for (int64_t e = 0; e < n; ++e)
            for (int64_t i = 0; i < fs; ++i)
              same = same && b.first[i * n + e] == a.first[e * fs + i];
          CHECK(same);
        }
      }
    }
  }
}

TEST_CASE("CPU backend: sparse Jacobians are the dense ones' entries in the pattern's order") {
  for (const Kernel& k :
       {test::arrhenius_kernel(), test::cut_kernel(true), cfd::roe_flux_kernel()}) {
    for (int w : {0, 2}) {
      CAPTURE(k.name());
      CAPTURE(w);
      jit::LoweringOptions o;
      o.width = w;
      const SparseAgainstDense r = sparse_against_dense(k, o, 64, 11);
      CHECK(r.same);
      CHECK(r.zeros_outside);
      CHECK(r.values_equal);
    }
  }
}

TEST_CASE("CPU backend equals the reference: random graphs") {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    test::RandomKernelOptions o;
    o.seed = 40 + seed;
    o.smooth_only = seed % 2 == 0;
    o.n_outputs = 1;
    const Kernel k = test::random_kernel(o, "random" + std::to_string(seed));
    check_against_reference(k, Mode::Jacobian, 1 + static_cast<int>(seed % 3), true, seed);
    check_against_reference(k, Mode::Hessian, 2, true, seed);
    if (seed == 1) check_against_reference(k, Mode::Hvp, 0, true, seed);
  }
}

TEST_CASE("CPU backend: normalised code equals the reference on the unsimplified graph") {
  // Every rewrite of dsl/normalize.h, and comparisons as predicates and as numbers.
  const Kernel k = test::negations_kernel(), raw = test::negations_kernel({.simplify = false});
  for (int w : {1, 4}) check_against_reference(k, Mode::Jacobian, w, true, 3, {}, 0, &raw);
  check_against_reference(k, Mode::Jacobian, 2, true, 4, {}, 12, &raw);  // split in pieces
}

TEST_CASE("CPU backend equals the reference with element functions split into pieces") {
  // Small pieces force many crossings of the scratch array, including slot reuse.
  check_against_reference(cfd::roe_flux_kernel(), Mode::Jacobian, 2, true, 5, {}, 40);
  check_against_reference(cfd::roe_flux_kernel(), Mode::Jacobian, 10, true, 6, {}, 300);
  check_against_reference(test::spring_kernel(), Mode::Hessian, 3, true, 7, {}, 25);
  test::RandomKernelOptions o;
  o.seed = 77;
  o.n_outputs = 1;
  o.smooth_only = false;
  const Kernel k = test::random_kernel(o, "random_split");
  check_against_reference(k, Mode::Hessian, 2, true, 8, {}, 30);
  check_against_reference(k, Mode::Hvp, 0, true, 9, {}, 30);
}

TEST_CASE("CPU backend: a second kernel of the same code loads from the cache") {
  jit::KernelCache cache(std::nullopt);
  jit::LoweringOptions o;
  o.mode = Mode::Gradient;
  const cpu::CpuKernel a(jit::lower(test::spring_kernel(), o), {}, cache);
  const cpu::CpuKernel b(jit::lower(test::spring_kernel(), o), {}, cache);
  CHECK(a.compiled_now());
  CHECK_FALSE(b.compiled_now());
  CHECK(cache.stats().memory_hits == 1);
}

TEST_CASE("CPU backend rejects mis-sized launches, naming the kernel") {
  jit::LoweringOptions o;
  o.mode = Mode::Gradient;
  const cpu::CpuKernel ck(jit::lower(test::spring_kernel(), o));
  jit::ElementLaunch a;
  a.n_elements = 4;
  CHECK_THROWS_WITH_AS(ck.run(a.args()), doctest::Contains("spring"), std::invalid_argument);
  const auto pr = test::make_problem(test::spring_kernel(), ck.lowered(), 8, 3);
  test::HostOutputs out;
  auto args = test::host_args(pr, ck.lowered(), out);
  args.uniforms.clear();
  CHECK_THROWS_WITH_AS(ck.run(args.args()), doctest::Contains("uniforms"), std::invalid_argument);
  args = test::host_args(pr, ck.lowered(), out);
  args.vertices_per_element = 1;
  CHECK_THROWS_WITH_AS(ck.run(args.args()), doctest::Contains("vertex 1"), std::invalid_argument);
  // Empty element sets are fine.
  args = test::host_args(pr, ck.lowered(), out);
  args.n_elements = 0;
  CHECK_NOTHROW(ck.run(args.args()));
}

TEST_CASE("CPU backend equals the reference with tapes: whole, row groups, widths, sparse") {
  // The reference evaluator takes tapes as the identity; the JIT stores each tape's value and
  // tangent in the tape chunk and the outputs' chunks compose from them.
  const Kernel k = test::tape_kernel(true), plain = test::tape_kernel(false);
  for (int rows : {0, 1, 3}) {
    for (int w : {0, 2}) {
      CAPTURE(rows);
      CAPTURE(w);
      check_against_reference(k, Mode::Jacobian, w, true, 11, {}, 0, nullptr, rows);
    }
  }
  check_against_reference(k, Mode::Jacobian, 0, true, 12, {}, 0, &plain, 2);
  check_against_reference(k, Mode::Jacobian, 0, true, 14, {}, 20);  // chunks in pieces
  check_against_reference(k, Mode::Value, 0);                       // straight through
  check_against_reference(k, Mode::Jacobian, 0, false);             // unpruned: straight through
  jit::LoweringOptions o;
  o.rows = 2;
  const SparseAgainstDense r = sparse_against_dense(k, o, 45, 13);
  CHECK(r.same);
  CHECK(r.zeros_outside);
  CHECK(r.values_equal);
}

TEST_CASE("CPU backend equals the reference with constant tables (the tapes' chunk, large)") {
  check_against_reference(test::large_tape_kernel(), Mode::Jacobian, 0, true, 21, {}, 0, nullptr,
                          1);
  check_against_reference(test::large_tape_kernel(), Mode::Jacobian, 0, true, 22, {}, 1000, nullptr,
                          2);  // in pieces
}

TEST_CASE("CPU backend: a kernel with tapes split into launches, the tape's first") {
  const Kernel k = test::tape_kernel(true);
  for (jit::FirstStores stores : {jit::FirstStores::Direct, jit::FirstStores::Staged,
                                  jit::FirstStores::StagedComponentMajor}) {
    CAPTURE(static_cast<int>(stores));
    jit::LoweringOptions o;
    o.mode = Mode::Jacobian;
    o.rows = 1;
    o.launches = 3;
    o.first_stores = stores;
    const std::vector<jit::LoweredKernel> parts = jit::lower_launches(k, o);
    REQUIRE(parts.size() == 3);
    CHECK(parts[0].writes_tape);
    CHECK(parts[0].plan.chunks.size() == 1);  // the tape chunk alone
    CHECK_FALSE(parts[1].writes_tape);
    CHECK_FALSE(parts[2].writes_tape);
    std::vector<cpu::CpuKernel> launches;
    for (const jit::LoweredKernel& l : parts) {
      REQUIRE(l.tape_size == parts[0].tape_size);
      launches.emplace_back(l);
    }
    o.launches = 1;
    o.first_stores = jit::FirstStores::Direct;
    const cpu::CpuKernel plain(jit::lower(test::tape_kernel(false), o));
    const auto pr = test::make_problem(k, plain.lowered(), 97, 5);
    test::HostOutputs split, one;
    const jit::ArgValues args = test::host_args(pr, parts[0], split).args();
    for (const cpu::CpuKernel& l : launches) l.run(args);
    plain.run(test::host_args(pr, plain.lowered(), one).args());
    CHECK(test::max_rel_err(split.values, one.values) < 1e-13);
    std::vector<double> first = split.first;
    if (stores == jit::FirstStores::StagedComponentMajor) {
      const int64_t n = pr.n_elements, fs = static_cast<int64_t>(parts[0].first_size);
      for (int64_t e = 0; e < n; ++e)
        for (int64_t i = 0; i < fs; ++i) first[e * fs + i] = split.first[i * n + e];
    }
    CHECK(test::max_rel_err(first, one.first) < 1e-13);
  }
}
