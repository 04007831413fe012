// The strategies that assemble element terms in place (backends/assembly/strategies/
// element_scatter.cpp, node_gather.cpp) on the CPU backend, where their emitted text runs over
// OpenMP: every output against the serial reference on problems with several terms, partial
// input bindings and scatter signs; the emitted drivers (golden files); misuse named. The GPU
// runs of the same text are in device_element_assembly_test.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>

#include "backends/assembly/assembler.h"
#include "backends/assembly/strategies/in_place_strategy.h"
#include "support/assembly.h"
#include "support/element_problems.h"
#include "support/golden.h"

using namespace dualjit;
using assembly::ElementStrategy;
using assembly::Problem;

namespace {

assembly::AssemblerOptions cpu_with(ElementStrategy s, int width = 0) {
  assembly::AssemblerOptions o = test::on_cpu();
  o.vector_strategy = o.matrix_strategy = s;
  o.element_width = width;
  return o;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

jit::LoweringOptions scatter_lowering(const assembly::Term& t, Mode m, int block, int width,
                                      int per_block) {
  return assembly::in_place_strategy(ElementStrategy::Scatter)
      .lowering(t, m, {block, width, per_block, nullptr});
}

jit::LoweringOptions node_gather_lowering(const assembly::Term& t, Mode m, int block, int width,
                                          int per_block) {
  return assembly::in_place_strategy(ElementStrategy::NodeGather)
      .lowering(t, m, {block, width, per_block, nullptr});
}

}  // namespace

TEST_CASE("element strategies: names parse back, unknown names list the choices") {
  for (auto s : {ElementStrategy::Gather, ElementStrategy::Scatter, ElementStrategy::NodeGather,
                 ElementStrategy::StagedNodeGather})
    CHECK(assembly::parse_element_strategy(assembly::element_strategy_name(s)) == s);
  CHECK_THROWS_WITH_AS(assembly::in_place_strategy(ElementStrategy::Gather),
                       doctest::Contains("element-gather does not assemble in place"),
                       std::invalid_argument);
  CHECK(assembly::in_place_strategy(ElementStrategy::NodeGather).kind() ==
        ElementStrategy::NodeGather);
  CHECK_THROWS_WITH_AS(assembly::parse_element_strategy("scatter"),
                       doctest::Contains("element-gather, element-scatter, node-gather, staged"),
                       std::invalid_argument);
}

TEST_CASE("in place (CPU): gradient, H v and Hessian equal the serial reference") {
  Problem p = test::energy_problem(60, 31);
  std::mt19937_64 rng(32);
  const auto x = test::uniform(180, -1.0, 1.0, rng), v = test::uniform(180, -1.0, 1.0, rng);
  auto ref = test::serial(p);
  for (auto [strategy, width] : {std::pair{ElementStrategy::Scatter, 0},
                                 {ElementStrategy::Scatter, 2},
                                 {ElementStrategy::NodeGather, 0},
                                 {ElementStrategy::NodeGather, 2},
                                 {ElementStrategy::StagedNodeGather, 0},
                                 {ElementStrategy::StagedNodeGather, 2}}) {
    // Width 2: three chunks per element, all run before the element's entries are added.
    CAPTURE(assembly::element_strategy_name(strategy));
    CAPTURE(width);
    assembly::Assembler a(p, cpu_with(strategy, width));
    CHECK(test::max_rel(a.gradient(x), ref.gradient(x)) < 1e-13);
    CHECK(test::max_rel(a.hvp(x, v), ref.hvp(x, v)) < 1e-13);
    for (auto sym : {mesh::Symmetry::General, mesh::Symmetry::Upper}) {
      CAPTURE(static_cast<int>(sym));
      const auto h = a.hessian(x, sym), hr = ref.hessian(x, sym);
      CHECK(h.pattern == hr.pattern);
      CHECK(test::max_rel(h.values, hr.values) < 1e-13);
    }
    // The energy is not an in-place output: the same serial sum as the reference.
    CHECK(a.energy(x) == ref.energy(x));
    if (strategy != ElementStrategy::Scatter) {  // one writer per row: the same bits again
      CHECK(a.gradient(x) == a.gradient(x));
      CHECK(a.hessian(x).values == a.hessian(x).values);
    }
  }
  // element-gather on the CPU is the serial reference itself.
  assembly::Assembler g(p, cpu_with(ElementStrategy::Gather));
  CHECK(g.gradient(x) == ref.gradient(x));
  CHECK(g.hessian(x).values == ref.hessian(x).values);
}

TEST_CASE("in place (CPU): general Jacobian of vector terms with scatter signs") {
  Problem p = test::vector_problem(40, 33);
  const auto q = test::roe_state(40, 34);
  auto ref = test::serial(p);
  for (auto strategy :
       {ElementStrategy::Scatter, ElementStrategy::NodeGather, ElementStrategy::StagedNodeGather}) {
    for (int width : {0, 5}) {
      CAPTURE(assembly::element_strategy_name(strategy));
      CAPTURE(width);
      assembly::Assembler a(p, cpu_with(strategy, width));
      CHECK(test::max_rel(a.jacobian(q).values, ref.jacobian(q).values) < 1e-13);
    }
  }
}

TEST_CASE("element-scatter: the emitted driver adds each stored entry once, nothing to memory") {
  Problem p = test::energy_problem(10, 35);
  const assembly::Term& springs = p.term(0);    // two vertices, both bound
  const assembly::Term& diagonals = p.term(1);  // three vertices, vertex 1 unbound
  const auto lower = [&](const assembly::Term& t, Mode m) {
    return jit::lower(*t.kernel, scatter_lowering(t, m, 3, 0, 128));
  };
  const auto grad = lower(springs, Mode::Gradient);
  CHECK(count(grad.cuda_source, "dj_atomic_add(r") == 6);
  CHECK(grad.args.find("out") != nullptr);
  CHECK(grad.args.find("first") == nullptr);  // no element-local arrays
  CHECK(grad.launch.block_threads == 128);
  CHECK(count(lower(springs, Mode::Hessian).cuda_source, "dj_atomic_add(m + ") == 4 * 9);
  // Vertex 1 of a diagonal has no input: no row and no block of it is touched.
  CHECK(count(lower(diagonals, Mode::Hvp).cuda_source, "dj_atomic_add(r") == 6);
  CHECK(count(lower(diagonals, Mode::Hessian).cuda_source, "dj_atomic_add(m + ") == 4 * 9);
  const auto dir = std::filesystem::path(DUALJIT_SOURCE_DIR) / "tests/backends/golden";
  for (Mode m : {Mode::Gradient, Mode::Hvp, Mode::Hessian}) {
    const auto k = lower(diagonals, m);
    const std::string stem = "element-scatter_" + std::string(mode_name(m));
    test::check_golden(dir / (stem + ".cu"), test::golden_text(k, k.cuda_source, true));
  }
  Problem vp = test::vector_problem(10, 36);
  const auto jac = lower(vp.term(1), Mode::Jacobian);
  test::check_golden(dir / "element-scatter_jacobian.cu",
                     test::golden_text(jac, jac.cuda_source, true));
}

TEST_CASE("node-gather: the emitted driver adds each of the node's entries, no atomics") {
  Problem p = test::energy_problem(10, 39);
  const assembly::Term& diagonals = p.term(1);  // three vertices, vertex 1 unbound
  const auto lower = [&](const assembly::Term& t, Mode m) {
    return jit::lower(*t.kernel, node_gather_lowering(t, m, 3, 0, 128));
  };
  const auto grad = lower(diagonals, Mode::Gradient);
  CHECK(count(grad.cuda_source, "acc[") == 1 + 2 * 3 + 3 * 2);  // decl, two vertices, store
  CHECK(count(grad.cuda_source, "atomic_add(") == 2);           // the prelude's only
  // One thread per visited node: every node, or the listed ones (InPlaceTarget::active).
  CHECK(grad.launch.items == "n_items");
  CHECK(grad.args.find("inc_side") != nullptr);  // the local vertex from offsets, not a load
  CHECK(grad.args.find("inc_vertex") == nullptr);
  CHECK(grad.args.find("active") != nullptr);
  const auto hess = lower(diagonals, Mode::Hessian);
  CHECK(count(hess.cuda_source, "] += d2[") == 4 * 9);
  CHECK(hess.args.find("row_ptr") != nullptr);
  const auto dir = std::filesystem::path(DUALJIT_SOURCE_DIR) / "tests/backends/golden";
  for (Mode m : {Mode::Gradient, Mode::Hessian}) {
    const auto k = lower(diagonals, m);
    test::check_golden(dir / ("node-gather_" + std::string(mode_name(m)) + ".cu"),
                       test::golden_text(k, k.cuda_source, true));
  }
  Problem vp = test::vector_problem(10, 40);
  const auto jac = lower(vp.term(1), Mode::Jacobian);
  test::check_golden(dir / "node-gather_jacobian.cu",
                     test::golden_text(jac, jac.cuda_source, true));
  CHECK_THROWS_WITH_AS(node_gather_lowering(p.term(0), Mode::Jacobian, 3, 0, 128),
                       doctest::Contains("term 'springs': node-gather jacobian"),
                       assembly::ProblemError);
}

TEST_CASE("staged-node-gather: tiles sized by the pattern; too large or without one, refused") {
  Problem p = test::energy_problem(300, 41);
  const auto& st = assembly::in_place_strategy(ElementStrategy::StagedNodeGather);
  const mesh::BlockPattern& pattern = p.pattern();
  const auto k =
      jit::lower(*p.term(0).kernel, st.lowering(p.term(0), Mode::Hessian, {3, 0, 64, &pattern}));
  // The largest range of T consecutive rows, in 3x3 blocks of doubles.
  const auto tile_of = [&](int64_t T) {
    int64_t most = 0;
    for (int64_t n0 = 0; n0 < 300; n0 += T) {
      most =
          std::max(most, pattern.row_ptr()[std::min<int64_t>(n0 + T, 300)] - pattern.row_ptr()[n0]);
    }
    return most;
  };
  // 64 rows need about 60 KB: 3 blocks of 2 warps per SM; 32 rows about half: 7 blocks of one
  // warp. More warps resident, so the rows per block are halved (and not again: 16 is not a
  // warp).
  REQUIRE(tile_of(64) * 72 > 56 * 1024);
  REQUIRE(tile_of(32) * 72 < 31 * 1024);
  CHECK(k.launch.block_threads == 32);
  const int64_t tile = tile_of(32);
  CHECK(k.launch.dynamic_shared_bytes == size_t(tile) * 72);
  CHECK(k.symbol.find("_sngb" + std::to_string(tile)) != std::string::npos);
  CHECK(k.cuda_source.find("extern __shared__ double tile[];") != std::string::npos);
  const auto dir = std::filesystem::path(DUALJIT_SOURCE_DIR) / "tests/backends/golden";
  test::check_golden(dir / "staged-node-gather_hessian.cu",
                     test::golden_text(k, k.cuda_source, true));
  CHECK_THROWS_WITH_AS(st.lowering(p.term(0), Mode::Hessian, {3, 0, 64, nullptr}),
                       doctest::Contains("needs the matrix's pattern"), assembly::ProblemError);
  // Too many nodes per block for shared memory: halved until the tile fits.
  const auto big = st.lowering(p.term(0), Mode::Hessian, {3, 0, 1 << 20, &pattern});
  CHECK(big.layout.elements_per_block < (1 << 20));
  CHECK(jit::lower(*p.term(0).kernel, big).launch.dynamic_shared_bytes <= 227 * 1024);
  // Rows of few blocks (a chain: 3 per row, 27 KB for 128 rows): 128 rows per block keep 8
  // blocks, 32 warps per SM; halving would not add any, so they stay.
  Problem chain(1000, 3);
  assembly::Term links = p.term(0);
  links.elements = {"chain", 2, {}};
  links.params.clear();
  for (int32_t a = 0; a + 1 < 1000; ++a) {
    links.elements.conn.insert(links.elements.conn.end(), {a, a + 1});
    links.params.push_back(1.0);
  }
  chain.add_term(links);
  CHECK(st.lowering(chain.term(0), Mode::Hessian, {3, 0, 128, &chain.pattern()})
            .layout.elements_per_block == 128);
  // A complete graph on 128 nodes: 32 rows already hold 4096 blocks (295 KB); refused.
  Problem dense(128, 3);
  assembly::Term all = p.term(0);
  all.elements = {"all pairs", 2, {}};
  all.params.clear();
  for (int32_t a = 0; a < 128; ++a) {
    for (int32_t b = a + 1; b < 128; ++b) {
      all.elements.conn.insert(all.elements.conn.end(), {a, b});
      all.params.push_back(1.0);
    }
  }
  dense.add_term(all);
  CHECK_THROWS_WITH_AS(
      st.lowering(dense.term(0), Mode::Hessian, {3, 0, 128, &dense.pattern()}),
      doctest::Contains("bytes of shared memory (at most 232448): fewer nodes per block"),
      assembly::ProblemError);
  // Rows need no tile: the same kernel as node-gather's.
  const auto rows =
      jit::lower(*p.term(0).kernel, st.lowering(p.term(0), Mode::Gradient, {3, 0, 64, nullptr}));
  CHECK(rows.cuda_source ==
        jit::lower(*p.term(0).kernel, node_gather_lowering(p.term(0), Mode::Gradient, 3, 0, 64))
            .cuda_source);
}

TEST_CASE("node-gather: a multi-vertex term's Hessian kernel evaluates the node terms") {
  Problem p = test::energy_problem(40, 35);  // term 2: a single-vertex term on every second node
  for (auto strategy : {ElementStrategy::NodeGather, ElementStrategy::StagedNodeGather}) {
    CAPTURE(assembly::element_strategy_name(strategy));
    const auto& st = assembly::in_place_strategy(strategy);
    CHECK(st.evaluates_node_terms());
    assembly::InPlaceShape shape{3, 0, 64, &p.pattern()};
    shape.node_terms = {&p.term(2)};
    const auto k = jit::lower(*p.term(0).kernel, st.lowering(p.term(0), Mode::Hessian, shape));
    CHECK(k.symbol.find("n1") != std::string::npos);
    // The node term's chunk function is in the module and called once, with the node's own
    // values, for each of its elements at the node; its block adds to the diagonal block.
    CHECK(count(k.cuda_source, "DJ_FN void " + k.symbol + "_n0_c0(") == 1);
    CHECK(count(k.cuda_source, k.symbol + "_n0_c0(x, v, p, u, val, d1, d2);") == 1);
    CHECK(count(k.cuda_source, "q < a.n0_inc_side[node + 1]") == 1);
    CHECK(count(k.cuda_source, "x[2] = own_x[2];") >= 1);
    CHECK(count(k.cuda_source, "const int s = a.diag_slot[node];") == 1);
    CHECK(k.args.find("n0_params") != nullptr);
    CHECK(k.args.find("n0_uniform") != nullptr);
    // Without node terms, none of it.
    const auto plain = jit::lower(*p.term(0).kernel,
                                  st.lowering(p.term(0), Mode::Hessian, {3, 0, 64, &p.pattern()}));
    CHECK(plain.cuda_source.find("_n0_c0") == std::string::npos);
    CHECK(plain.args.find("diag_slot") == nullptr);
    // Only the Hessian of a multi-vertex term takes them, and only single-vertex ones.
    CHECK_THROWS_WITH_AS(st.lowering(p.term(0), Mode::Gradient, shape),
                         doctest::Contains("only the Hessian of a multi-vertex term"),
                         assembly::ProblemError);
    CHECK_THROWS_WITH_AS(st.lowering(p.term(2), Mode::Hessian, shape),
                         doctest::Contains("term 'anchor'"), assembly::ProblemError);
    shape.node_terms = {&p.term(1)};
    CHECK_THROWS_WITH_AS(st.lowering(p.term(0), Mode::Hessian, shape),
                         doctest::Contains("node term 'triangle diagonals' has elements of 3"),
                         assembly::ProblemError);
  }
  CHECK_FALSE(assembly::in_place_strategy(ElementStrategy::Scatter).evaluates_node_terms());
  // A term of one element per node, in node order (a per-vertex mass): no incidence, its
  // params read before the node's elements; the Hessian still equals the serial reference.
  Problem q = test::energy_problem(40, 35);
  assembly::Term mass = q.term(2);
  mass.name = "mass";
  mass.elements.conn.resize(40);
  for (int32_t i = 0; i < 40; ++i) mass.elements.conn[i] = i;
  std::mt19937_64 mrng(37);
  mass.params = test::uniform(40, 0.5, 1.5, mrng);
  q.add_term(std::move(mass));
  {
    const auto& st = assembly::in_place_strategy(ElementStrategy::StagedNodeGather);
    assembly::InPlaceShape shape{3, 0, 64, &q.pattern()};
    shape.node_terms = {&q.term(2), &q.term(3)};
    const auto k = jit::lower(*q.term(0).kernel, st.lowering(q.term(0), Mode::Hessian, shape));
    CHECK(k.symbol.find("n2p1") != std::string::npos);
    CHECK(count(k.cuda_source, "n1_p[0] = a.n1_params[node * 1 + 0];") == 1);
    CHECK(count(k.cuda_source, "a.n1_inc_side") == 0);
    CHECK(count(k.cuda_source, "a.n0_inc_side[node + 1]") == 1);
    const auto xq = test::uniform(120, -1.0, 1.0, mrng);
    auto ref = test::serial(q);
    for (auto strategy : {ElementStrategy::NodeGather, ElementStrategy::StagedNodeGather}) {
      CAPTURE(assembly::element_strategy_name(strategy));
      assembly::Assembler a(q, cpu_with(strategy));
      CHECK(test::max_rel(a.hessian(xq).values, ref.hessian(xq).values) < 1e-13);
      const assembly::EnergyGradientHessian f = a.energy_gradient_hessian(xq);
      CHECK(test::max_rel(f.gradient, ref.gradient(xq)) < 1e-13);
      CHECK(std::abs(f.energy - ref.energy(xq)) <= 1e-13 * std::abs(ref.energy(xq)));
    }
  }
  // The assemblies build no kernel of the single-vertex term's own for the Hessian.
  std::mt19937_64 rng(36);
  const auto x = test::uniform(120, -1.0, 1.0, rng);
  assembly::Assembler a(p, cpu_with(ElementStrategy::StagedNodeGather));
  a.hessian(x);
  for (const assembly::KernelInfo& k : a.kernels()) {
    CAPTURE(k.symbol);
    CHECK(k.symbol.find("anchor") == std::string::npos);
  }
}

TEST_CASE("element-scatter: a mode that does not fit the term is named") {
  Problem e = test::energy_problem(10, 37);
  Problem v = test::vector_problem(10, 38);
  CHECK_THROWS_WITH_AS(scatter_lowering(e.term(0), Mode::Value, 3, 0, 128),
                       doctest::Contains("term 'springs': element-scatter value"),
                       assembly::ProblemError);
  CHECK_THROWS_WITH_AS(scatter_lowering(v.term(0), Mode::Hessian, 5, 0, 128),
                       doctest::Contains("term 'edges'"), assembly::ProblemError);
  auto o = scatter_lowering(e.term(0), Mode::Gradient, 3, 0, 128);
  o.layout = {2, 64};
  CHECK_THROWS_WITH_AS(jit::lower(*e.term(0).kernel, o),
                       doctest::Contains("one thread per element"), std::invalid_argument);
}

TEST_CASE("in place (CPU): a term with no elements adds nothing and needs no params") {
  // A rank of a partition holding no boundary node has a boundary term with no elements.
  Problem p = test::vector_problem(40, 33);
  const auto q = test::roe_state(40, 34);
  const std::vector<double> r_ref = test::serial(p).residual(q);
  const std::vector<double> j_ref = test::serial(p).jacobian(q).values;
  assembly::Term empty = p.term(0);
  empty.name = "no elements";
  empty.elements.conn.clear();
  empty.params.clear();
  p.add_term(std::move(empty));
  for (auto strategy :
       {ElementStrategy::Scatter, ElementStrategy::NodeGather, ElementStrategy::StagedNodeGather}) {
    CAPTURE(assembly::element_strategy_name(strategy));
    assembly::Assembler a(p, cpu_with(strategy));
    CHECK(test::max_rel(a.residual(q), r_ref) < 1e-13);
    CHECK(test::max_rel(a.jacobian(q).values, j_ref) < 1e-13);
  }
}
