// Generated in-place assembly (scatter with atomics, gather by column) against the serial
// host assembly; determinism of gather-by-column.
#include <doctest/doctest.h>

#include <omp.h>

#include <cstring>
#include <numeric>
#include <random>

#include "backends/assembly/fused_assembly.h"
#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_problem.h"
#include "jit/cuda_image.h"
#include "jit/launch_args.h"
#include "support/assembly.h"
#include "support/golden.h"
#include "support/gpu.h"
#include "support/test_kernels.h"

using namespace dualjit;
using assembly::FusedOptions;
using assembly::Problem;

namespace {

Problem roe_edges(int64_t n_nodes, int64_t n_edges, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Problem p(n_nodes, 5);
  assembly::Term t;
  t.name = "edges";
  t.kernel = std::make_shared<Kernel>(cfd::roe_flux_kernel());
  t.elements = {"edges", 2, {}};
  std::uniform_int_distribution<int32_t> node(0, static_cast<int32_t>(n_nodes - 1));
  for (int64_t e = 0; e < n_edges; ++e) {
    const int32_t a = node(rng);
    int32_t b = node(rng);
    while (b == a) b = node(rng);
    t.elements.conn.push_back(a);
    t.elements.conn.push_back(b);
  }
  t.output_scatter = {{{0, 1.0}, {1, -1.0}}};
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t i = 0; i < n_edges * 3; ++i) t.params.push_back(u(rng));
  t.uniforms = {1.4};
  p.add_term(std::move(t));
  return p;
}

std::vector<double> roe_state(int64_t n_nodes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto data = test::data_for("roe_flux");
  std::vector<double> q(n_nodes * 5);
  for (int64_t i = 0; i < n_nodes * 5; ++i) q[i] = data.input(static_cast<int>(i % 5), rng);
  return q;
}

double max_rel(const std::vector<double>& a, const std::vector<double>& b) {
  double w = 0, scale = 1;
  for (double x : b) scale = std::max(scale, std::abs(x));
  for (size_t i = 0; i < a.size(); ++i) w = std::max(w, std::abs(a[i] - b[i]) / scale);
  return a.size() == b.size() ? w : INFINITY;
}

template <class T>
std::vector<double> as_double(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

// The Roe problem on a 2x2x2 tet box: edges (k = 2) and far-field nodes (k = 1).
Problem tiny_roe() {
  return cfd::roe_problem(cfd::build_edge_mesh(cfd::box_tet_mesh(2, 2, 2)));
}

FusedOptions gather_options(bool jacobian) {
  FusedOptions o;
  o.strategy = "staged-gather";
  o.jacobian = jacobian;
  return o;
}

// The GPU kernels of p's vector terms under o, in term order.
std::vector<jit::LoweredKernel> gpu_kernels(Problem& p, const FusedOptions& o) {
  std::vector<jit::LoweredKernel> out;
  for (auto& f : assembly::fused_kernels(p, o, true, /*gpu=*/true)) out.push_back(f.lowered);
  return out;
}

// Residual, diagonal blocks and off-diagonal values, one after another.
std::vector<double> all_of(const std::vector<double>& r, const mesh::SplitBlockCsr<double>& j) {
  std::vector<double> all = r;
  all.insert(all.end(), j.diag.begin(), j.diag.end());
  all.insert(all.end(), j.off.values.begin(), j.off.values.end());
  return all;
}

// The same bits (== would let -0.0 pass for 0.0).
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

TEST_CASE("host fused assembly equals the serial assembly, both strategies, fp32 and fp64") {
  Problem p = roe_edges(40, 150, 41);
  const auto q = roe_state(40, 42);
  const auto ref_r = test::serial(p).residual(q);
  const auto ref = test::serial(p).jacobian_split<double>(q);
  for (const char* strategy : {"scatter-atomic", "gather-by-column"}) {
    CAPTURE(strategy);
    FusedOptions o;
    o.strategy = strategy;
    std::vector<double> r(q.size(), 0.0);
    auto j64 = mesh::SplitBlockCsr<double>::zeros(p.off_pattern(), 5, 5);
    test::assemble_on_cpu(p, q, o, r, j64);
    CHECK(max_rel(r, ref_r) < 1e-12);
    CHECK(max_rel(j64.diag, ref.diag) < 1e-12);
    CHECK(max_rel(j64.off.values, ref.off.values) < 1e-12);
    std::vector<double> r32(q.size(), 0.0);
    auto j32 = mesh::SplitBlockCsr<float>::zeros(p.off_pattern(), 5, 5);
    test::assemble_on_cpu(p, q, o, r32, j32);
    CHECK(max_rel(j32.diag, ref.diag) < 1e-12);
    CHECK(max_rel(as_double(j32.off.values), ref.off.values) < 1e-6);
  }
  // Residual only.
  FusedOptions o;
  o.jacobian = false;
  std::vector<double> r(q.size(), 0.0);
  auto unused = mesh::SplitBlockCsr<float>::zeros(p.off_pattern(), 5, 5);
  test::assemble_on_cpu(p, q, o, r, unused);
  CHECK(max_rel(r, ref_r) < 1e-12);
}

TEST_CASE("a HostFusedAssembly reused over states equals fresh assemblies; wrong sizes throw") {
  Problem p = roe_edges(30, 120, 45);
  for (const char* strategy : {"scatter-atomic", "gather-by-column"}) {
    CAPTURE(strategy);
    FusedOptions o;
    o.strategy = strategy;
    const assembly::HostFusedAssembly<double> host(p, o);
    for (uint64_t seed : {46, 47}) {
      const auto q = roe_state(30, seed);
      const auto ref = test::serial(p).jacobian_split<double>(q);
      std::vector<double> r(q.size(), 0.0);
      auto j = mesh::SplitBlockCsr<double>::zeros(p.off_pattern(), 5, 5);
      host.run(q, r, j);
      CHECK(max_rel(r, test::serial(p).residual(q)) < 1e-12);
      CHECK(max_rel(j.diag, ref.diag) < 1e-12);
      CHECK(max_rel(j.off.values, ref.off.values) < 1e-12);
    }
    std::vector<double> short_state(10, 1.0), r(150, 0.0);
    auto j = mesh::SplitBlockCsr<double>::zeros(p.off_pattern(), 5, 5);
    CHECK_THROWS_WITH_AS(host.run(short_state, r, j),
                         doctest::Contains("state has 10 values, expected 150"),
                         assembly::ProblemError);
    const auto q = roe_state(30, 48);
    std::vector<double> r_short(5, 0.0);
    CHECK_THROWS_WITH_AS(host.run(q, r_short, j), doctest::Contains("residual has 5 values"),
                         assembly::ProblemError);
  }
}

TEST_CASE("gather-by-column is bit-identical across runs and thread counts") {
  Problem p = roe_edges(60, 300, 43);
  const auto q = roe_state(60, 44);
  FusedOptions o;
  o.strategy = "gather-by-column";
  std::vector<std::vector<double>> runs;
  for (int threads : {1, 2, 1, 2}) {
    omp_set_num_threads(threads);
    std::vector<double> r(q.size(), 0.0);
    auto j = mesh::SplitBlockCsr<double>::zeros(p.off_pattern(), 5, 5);
    test::assemble_on_cpu(p, q, o, r, j);
    r.insert(r.end(), j.diag.begin(), j.diag.end());
    r.insert(r.end(), j.off.values.begin(), j.off.values.end());
    runs.push_back(std::move(r));
  }
  omp_set_num_threads(omp_get_num_procs());
  for (const auto& r : runs) CHECK(r == runs[0]);
}

TEST_CASE("host gather sums each node's sides in element order, then the sides (bitwise)") {
  // The order the GPU gathers reproduce bit for bit (strategies/gather_by_column.cpp), written
  // out from the element results: random edges, so nodes have runs of several elements on both
  // sides.
  Problem p = roe_edges(60, 500, 59);
  const auto q = roe_state(60, 60);
  FusedOptions o;
  o.strategy = "staged-gather";  // its host form, gather-by-column, runs here
  std::vector<double> r(q.size(), 0.0);
  auto j = mesh::SplitBlockCsr<double>::zeros(p.off_pattern(), 5, 5);
  test::assemble_on_cpu(p, q, o, r, j);
  const auto values = test::serial(p).element_results(0, Mode::Value, q).values;   // [e][5]
  const auto first = test::serial(p).element_results(0, Mode::Jacobian, q).first;  // [e][5][10]
  const auto& conn = p.term(0).elements.conn;
  const int64_t n_e = p.term(0).elements.size();
  std::vector<double> want_r(q.size()), want_d(j.diag.size());
  for (int64_t n = 0; n < p.n_nodes(); ++n) {
    for (int c = 0; c < 30; ++c) {  // 5 residual rows, then 25 diagonal entries
      double tot = 0.0;
      for (int lv = 0; lv < 2; ++lv) {
        const double sign = lv == 0 ? 1.0 : -1.0;
        double s = 0.0;
        for (int64_t e = 0; e < n_e; ++e) {
          if (conn[2 * e + lv] != n) continue;
          s += c < 5 ? sign * values[e * 5 + c]
                     : sign * first[e * 50 + (c - 5) / 5 * 10 + lv * 5 + (c - 5) % 5];
        }
        tot += s;
      }
      (c < 5 ? want_r[n * 5 + c] : want_d[n * 25 + c - 5]) = tot;
    }
  }
  CHECK(same_bits(r, want_r));
  CHECK(same_bits(j.diag, want_d));
}

TEST_CASE("single-writer detection: a tet edge mesh has one block per off slot, random edges not") {
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(2, 3, 2));
  Problem tet = cfd::roe_problem(em);
  CHECK(assembly::off_blocks_single_writer(tet));
  // The same edges twice: every off slot gets two blocks.
  Problem twice(em.n_nodes, 5);
  for (int i = 0; i < 2; ++i) twice.add_term(assembly::Term(tet.term(0)));
  CHECK_FALSE(assembly::off_blocks_single_writer(twice));
  Problem random = roe_edges(50, 400, 47);  // repeats pairs (both orientations)
  CHECK_FALSE(assembly::off_blocks_single_writer(random));
}

TEST_CASE("edge-based storage: each edge's two blocks together, read back by rows exactly") {
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(3, 2, 3));
  Problem p = cfd::roe_problem(em);
  const assembly::OffElementOrder order = assembly::off_element_order(p);
  // Edge e's (v0, v1) block is stored at 2e, its (v1, v0) block at 2e + 1.
  const mesh::BlockPattern& off = p.off_pattern();
  const mesh::ElementSet& edges = p.term(0).elements;
  REQUIRE(off.n_blocks() == 2 * edges.size());
  for (int64_t e = 0; e < edges.size(); ++e) {
    const int32_t a = edges.vertex(e, 0), b = edges.vertex(e, 1);
    CHECK(order.storage_of_block[off.find(a, b)] == 2 * e);
    CHECK(order.storage_of_block[off.find(b, a)] == 2 * e + 1);
    CHECK(order.element_slots[0][e * 4 + 1] == 2 * e);
    CHECK(order.element_slots[0][e * 4 + 2] == 2 * e + 1);
    CHECK(mesh::BlockPattern::diag_slot_node(order.element_slots[0][e * 4 + 0]) == a);
  }
  // The host assembly into edge-based storage, permuted to rows: the single writer of each
  // block adds it once onto zero, so the blocks are bit-identical to the storage by rows.
  const auto q = cfd::perturbed_state(p.n_nodes(), {}, 0.2, 51);
  assembly::Assembler assembler(p, test::on_cpu());
  std::vector<double> r_rows, r_edges;
  const auto rows = assembler.jacobian_split<double>(q, &r_rows);
  const auto by_edges = assembler.jacobian_split<double>(q, &r_edges, assembly::OffOrder::elements);
  CHECK(same_bits(by_edges.off.values, rows.off.values));
  CHECK(max_rel(by_edges.diag, rows.diag) < 1e-14);
  CHECK(max_rel(r_edges, r_rows) < 1e-14);
  const auto ref = test::serial(p).jacobian_split<double>(q);
  CHECK(max_rel(by_edges.off.values, ref.off.values) < 1e-12);
  const auto f32 = assembler.jacobian_split<float>(q, nullptr, assembly::OffOrder::elements);
  CHECK(max_rel(as_double(f32.off.values), ref.off.values) < 1e-6);

  // Repeated edges give a block two writers: refused, naming the kernel and the nodes.
  Problem random = roe_edges(50, 400, 47);
  CHECK_THROWS_WITH_AS(assembly::off_element_order(random), doctest::Contains("kernel 'roe_flux'"),
                       assembly::ProblemError);
  assembly::Assembler on_random(random, test::on_cpu());
  CHECK_THROWS_WITH_AS(
      on_random.jacobian_split<double>(roe_state(50, 52), nullptr, assembly::OffOrder::elements),
      doctest::Contains("one writer per off-diagonal block"), assembly::ProblemError);
}

TEST_CASE("golden sources of every assembly strategy's driver, CUDA entry and host form") {
  // The edge term of the Roe problem (tet edges: direct Aoff stores where a strategy uses
  // them) and its far-field term (k = 1), Jacobian and residual only; element chunk functions
  // have their own goldens (tests/jit/golden).
  const auto dir = std::filesystem::path(DUALJIT_SOURCE_DIR) / "tests/backends/golden";
  Problem p = tiny_roe();
  for (const std::string& name : assembly::fused_strategy_names()) {
    for (bool jac : {true, false}) {
      FusedOptions o;
      o.strategy = name;
      o.jacobian = jac;
      const auto fused = assembly::fused_kernels(p, o, true, /*gpu=*/true);
      for (size_t ti = 0; ti < fused.size(); ++ti) {
        const jit::LoweredKernel& lk = fused[ti].lowered;
        const std::string stem =
            name + (jac ? "_jacobian" : "_residual") + "_term" + std::to_string(ti);
        test::check_golden(dir / (stem + ".cu"), test::golden_text(lk, lk.cuda_source, true));
        if (!lk.host_source.empty() && ti == 0)
          test::check_golden(dir / (stem + "_host.txt"),
                             test::golden_text(lk, lk.host_source, true));
      }
    }
  }
}

TEST_CASE("staged scatter kernels compile for sm_90 in every variant; misuse is refused") {
  jit::KernelCache cache(std::nullopt);
  Problem p = tiny_roe();
  for (bool jac : {true, false}) {
    FusedOptions o;
    o.strategy = "staged-scatter";
    o.pre_reduce = jac;
    o.jacobian = jac;
    o.layout = {2, 32};
    const auto kernels = gpu_kernels(p, o);
    REQUIRE(kernels.size() == 2);
    for (size_t ti = 0; ti < kernels.size(); ++ti) {
      const auto& lk = kernels[ti];
      CAPTURE(lk.symbol);
      CHECK(lk.cuda_source.find("__shared__ double dj_val") != std::string::npos);
      // Direct Aoff stores: a tet edge mesh has one writer per off slot (the edge term).
      CHECK((lk.cuda_source.find("] = (float)(") != std::string::npos) == (jac && ti == 0));
      CHECK(lk.host_source.empty());  // CUDA only: on the host it runs as scatter-atomic
      // No uncalled functions: the staged kernel stages, it never adds element by element.
      CHECK(lk.cuda_source.find("_assemble(") == std::string::npos);
      // The scatter's atomics leave the order to the hardware: FMA contraction stays on.
      const jit::CompileOptions co = jit::default_compile_options(lk, "sm_90");
      CHECK(co.fused_multiply_add);
      const auto img = jit::cuda_image(lk, co, cache);
      CHECK(img.is_cubin);
      CHECK(img.ptxas.registers > 0);
    }
    CHECK_THROWS_WITH_AS(cpu::CpuKernel{kernels[0]}, doctest::Contains("no host form"),
                         std::invalid_argument);
  }
  FusedOptions big;
  big.strategy = "staged-scatter";
  big.layout = {2, 128};  // 128 local Roe Jacobians: over 48 KiB of shared memory
  // The block does not fit: the term goes to the unstaged form, scatter-atomic.
  FusedOptions unstaged = big;
  unstaged.strategy = "scatter-atomic";
  CHECK(gpu_kernels(p, big)[0].symbol == gpu_kernels(p, unstaged)[0].symbol);
  FusedOptions fits = big;
  fits.layout = {2, 32};
  CHECK(gpu_kernels(p, fits)[0].symbol != gpu_kernels(p, unstaged)[0].symbol);
  FusedOptions unknown;
  unknown.strategy = "scatter-by-magic";
  CHECK_THROWS_WITH_AS(gpu_kernels(p, unknown), doctest::Contains("known: scatter-atomic"),
                       std::invalid_argument);
}

TEST_CASE("staged gather kernels compile for sm_90 spill-free; misuse is refused") {
  jit::KernelCache cache(std::nullopt);
  Problem p = tiny_roe();
  for (bool jac : {true, false}) {
    FusedOptions o = gather_options(jac);
    o.layout = {1, 64};
    const auto fused = assembly::fused_kernels(p, o, true, /*gpu=*/true);
    REQUIRE(fused.size() == 2);
    for (size_t i = 0; i < fused.size(); ++i) {
      const auto& lk = fused[i].lowered;
      CAPTURE(lk.symbol);
      CHECK(fused[i].strategy->name() == "staged-gather");
      CHECK(fused[i].strategy->stores_rows() == (i == 0));  // the first term owns the rows
      CHECK(lk.cuda_source.find("a.node_blocks[2 * blockIdx.x]") != std::string::npos);
      CHECK(lk.cuda_source.find("_gather(") == std::string::npos);  // no uncalled functions
      CHECK(lk.launch.items == "n_node_blocks");
      CHECK(lk.launch.items_per_block == 1);
      // Deterministic: compiled without FMA contraction (jit/cuda_image.h).
      const jit::CompileOptions co = jit::default_compile_options(lk, "sm_90");
      CHECK_FALSE(co.fused_multiply_add);
      CHECK(co.canonical().find("--fmad=false") != std::string::npos);
      const auto img = jit::cuda_image(lk, co, cache);
      CHECK(img.is_cubin);
      CHECK(img.ptxas.registers > 0);
      CHECK(img.ptxas.stack_bytes == 0);
    }
    // The edge kernel's entry has no atomics: direct Aoff stores (one writer per slot) and
    // owned rows.
    const std::string& src = fused[0].lowered.cuda_source;
    const std::string entry = src.substr(src.find("extern \"C\" __global__"));
    CHECK(entry.find("dj_atomic_add") == std::string::npos);
    // Rows stored once, each the sum of its sides' running sums, side by side.
    CHECK(entry.find("tot += dj_racc[0 + i]; tot += dj_racc[160 + i]; a.residual[n0 * 5 + i] = "
                     "tot;") != std::string::npos);
    CHECK((entry.find("] = (float)(") != std::string::npos) == jac);
    // Its argument block: the side incidence and node blocks, not the per-node incidence, and
    // every field it declares comes from its table.
    const jit::LoweredKernel& lk = fused[0].lowered;
    CHECK(lk.args.find("side_ptr"));
    CHECK(lk.args.find("node_blocks"));
    CHECK_FALSE(lk.args.find("inc_ptr"));
    CHECK_FALSE(lk.args.find("values"));
    CHECK(src.find(lk.args.struct_text("DjArgs_" + lk.symbol)) != std::string::npos);
    std::vector<double> buf(8);
    std::vector<int64_t> i64(8);
    std::vector<int32_t> i32(8);
    jit::ArgValues a;
    a.set("n_elements", int64_t{4});
    a.set("conn", i32.data());
    a.set("vertices_per_element", int64_t{2});
    a.set("field", std::vector<const void*>{buf.data(), buf.data()});
    a.set("params", buf.data());
    a.set_doubles("uniform", {1.4});
    a.set("residual", buf.data());
    a.set("diag", buf.data());
    a.set("off", buf.data());
    a.set("n_nodes", int64_t{3});
    a.set("side_ptr", i64.data());
    a.set("node_blocks", i64.data());
    a.set("side_element", i32.data());
    a.set("side_slot", i32.data());
    a.set("n_node_blocks", int64_t{1});
    CHECK(jit::pack_launch(lk, a).words.size() == lk.args.words());
    a.set("side_element", static_cast<const void*>(nullptr));
    CHECK_THROWS_WITH_AS(jit::pack_launch(lk, a), doctest::Contains("side incidence elements"),
                         std::invalid_argument);
    a.set("inc_ptr", i64.data());  // a field of the unstaged gather, not of this kernel
    CHECK_THROWS_WITH_AS(jit::pack_launch(lk, a), doctest::Contains("no argument named 'inc_ptr'"),
                         std::invalid_argument);
  }
  FusedOptions two = gather_options(true);
  two.layout = {2, 32};  // staged gather runs one element per thread
  CHECK_THROWS_WITH_AS(gpu_kernels(p, two), doctest::Contains("layout 1xT"), std::invalid_argument);
  FusedOptions big = gather_options(true);
  big.layout = {1, 128};  // 128 staged Roe Jacobians: over 48 KiB of shared memory
  // The block does not fit: the term goes to the unstaged form, gather-by-column.
  FusedOptions unstaged = big;
  unstaged.strategy = "gather-by-column";
  CHECK(gpu_kernels(p, big)[0].symbol == gpu_kernels(p, unstaged)[0].symbol);
  CHECK(gpu_kernels(p, gather_options(true))[0].symbol != gpu_kernels(p, unstaged)[0].symbol);
}

TEST_CASE("warp-specialised gather kernels compile for sm_90a spill-free; misuse is refused") {
  jit::KernelCache cache(std::nullopt);
  Problem p = tiny_roe();
  for (bool jac : {true, false}) {
    FusedOptions o = gather_options(jac);
    o.strategy = "warp-specialized-gather";
    const auto fused = assembly::fused_kernels(p, o, true, /*gpu=*/true);
    REQUIRE(fused.size() == 2);
    for (const auto& f : fused) {
      const jit::LoweredKernel& lk = f.lowered;
      CAPTURE(lk.symbol);
      CHECK(lk.symbol.back() == 'w');
      // Two buffers of 64 staged elements per side (and the sums): dynamic shared memory,
      // over the 48 KiB of static arrays for the edge Jacobian; a persistent grid.
      CHECK(lk.launch.dynamic_shared_bytes > 0);
      CHECK(lk.launch.blocks_per_sm == 2);
      CHECK(lk.launch.block_threads == 256);
      if (jac && f.strategy->spec().vertices == 2) {
        // 2 x (2 x 64 x 5 values + 64 x 51 d1) + 2 x 32 x (5 + 25) sums, in doubles, then
        // 2 x 33 runs and 2 x 64 slots, in ints.
        CHECK(lk.launch.dynamic_shared_bytes == 8 * (2 * (640 + 3264) + 1920) + 4 * (66 + 128));
      }
      CHECK(lk.cuda_source.find("setmaxnreg.inc.sync.aligned.u32") != std::string::npos);
      CHECK(lk.cuda_source.find("setmaxnreg.dec.sync.aligned.u32") != std::string::npos);
      const jit::CompileOptions co = jit::default_compile_options(lk, "sm_90");
      CHECK(co.arch == "sm_90a");  // setmaxnreg is arch-specific
      CHECK_FALSE(co.fused_multiply_add);
      const auto img = jit::cuda_image(lk, co, cache);
      CHECK(img.is_cubin);
      CHECK(img.ptxas.registers > 0);
      // The launch count is the pool both warpgroups split (216 + 40 = 2 x 128): with fewer,
      // the compute warpgroup's setmaxnreg.inc would wait forever.
      CHECK(img.ptxas.registers == 128);
      CHECK(img.ptxas.stack_bytes == 0);  // neither warpgroup spills at its register count
      CHECK(img.ptxas.spill_store_bytes == 0);
      CHECK_THROWS_WITH_AS(jit::default_compile_options(lk, "sm_80"),
                           doctest::Contains("needs sm_90a"), std::invalid_argument);
    }
  }
  FusedOptions ws = gather_options(true);
  ws.strategy = "warp-specialized-gather";
  ws.layout = {1, 256};  // two buffers of 256 Roe Jacobians per side: too much shared memory
  CHECK_THROWS_WITH_AS(gpu_kernels(p, ws), doctest::Contains("fewer elements per block"),
                       std::invalid_argument);
}

TEST_SUITE("gpu") {
  TEST_CASE("GPU staged scatter (coalesced, direct Aoff stores, pre-reduction) equals the host" *
            test::needs_gpu()) {
    // A tet edge mesh (single writer per Aoff slot: direct stores) with its far-field term,
    // and random edges (repeated pairs: atomics), in natural and random node order.
    const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(9, 8, 7));
    std::vector<Problem> problems;
    problems.push_back(cfd::roe_problem(em));
    problems.push_back(roe_edges(3000, 20000, 48));
    for (Problem& p : problems) {
      const auto q = cfd::perturbed_state(p.n_nodes(), {}, 0.2, 49);
      const auto ref_r = test::serial(p).residual(q);
      const auto ref = test::serial(p).jacobian_split<double>(q);
      for (int variant = 0; variant < 6; ++variant) {
        FusedOptions o;  // staged-scatter
        o.pre_reduce = variant % 2 == 1;
        o.width = variant / 2 == 2 ? 1 : 5 * (1 + variant / 2 % 2);
        o.layout = variant / 2 == 2 ? jit::LaunchLayout{10, 32} : jit::LaunchLayout{2, 64, 1};
        test::GpuSplit<double> d64(p, o);
        d64.set_state(q);
        d64.run();
        CAPTURE(d64.kernels()[0].symbol);
        d64.run();  // a second run must not accumulate onto the first (zeroing / direct stores)
        const auto j64 = d64.jacobian();
        CHECK(max_rel(d64.residual(), ref_r) < 1e-12);
        CHECK(max_rel(j64.diag, ref.diag) < 1e-12);
        CHECK(max_rel(j64.off.values, ref.off.values) < 1e-12);
        test::GpuSplit<float> d32(p, o);
        d32.set_state(q);
        d32.run();
        CHECK(max_rel(as_double(d32.jacobian().off.values), ref.off.values) < 1e-6);
        FusedOptions ro = o;
        ro.jacobian = false;
        ro.width = 0;
        test::GpuSplit<float> res(p, ro);
        res.set_state(q);
        res.run();
        CHECK(max_rel(res.residual(), ref_r) < 1e-12);
      }
    }
  }

  TEST_CASE("GPU edge-based storage equals the storage by rows, every strategy" *
            test::needs_gpu()) {
    const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(9, 8, 7));
    Problem p = cfd::roe_problem(em);
    const auto q = cfd::perturbed_state(p.n_nodes(), {}, 0.2, 53);
    const auto ref = test::serial(p).jacobian_split<double>(q);
    for (const char* strategy : {"staged-scatter", "scatter-atomic", "staged-gather"}) {
      CAPTURE(strategy);
      FusedOptions o;
      o.strategy = strategy;
      test::GpuSplit<double> rows(p, o);
      o.off_order = assembly::OffOrder::elements;
      test::GpuSplit<double> edges(p, o);
      rows.set_state(q);
      edges.set_state(q);
      rows.run();
      edges.run();
      edges.run();  // stores or zeroing: a second run must not accumulate
      REQUIRE(edges.last().off_storage != nullptr);
      CHECK(rows.last().off_storage == nullptr);
      const auto jr = rows.jacobian(), je = edges.jacobian();
      CHECK(max_rel(je.off.values, ref.off.values) < 1e-12);
      CHECK(max_rel(je.diag, ref.diag) < 1e-12);
      CHECK(max_rel(je.off.values, jr.off.values) < 1e-14);
      CHECK(max_rel(edges.residual(), rows.residual()) < 1e-14);
      // The stored order is the edges': edge 0's two blocks first.
      std::vector<double> first(50);
      cuda::download(first.data(), edges.last().off, first.size() * sizeof(double));
      const mesh::BlockPattern& off = p.off_pattern();
      const int32_t a = p.term(0).elements.vertex(0, 0), b = p.term(0).elements.vertex(0, 1);
      CHECK(std::equal(first.begin(), first.begin() + 25, jr.off.block(off.find(a, b))));
      CHECK(std::equal(first.begin() + 25, first.end(), jr.off.block(off.find(b, a))));
    }
  }

  TEST_CASE("GPU fused assembly equals the serial assembly; gather-by-column is deterministic" *
            test::needs_gpu()) {
    Problem p = roe_edges(2000, 12000, 45);
    const auto q = roe_state(2000, 46);
    const auto ref_r = test::serial(p).residual(q);
    const auto ref = test::serial(p).jacobian_split<double>(q);
    // Random edges repeat node pairs: several writers per off slot (atomics in the staged
    // gather, which is deterministic only with one writer: see the next case).
    for (int variant = 0; variant < 3; ++variant) {
      FusedOptions o;
      o.strategy = variant == 0   ? "staged-scatter"
                   : variant == 1 ? "gather-by-column"
                                  : "staged-gather";
      CAPTURE(o.strategy);
      test::GpuSplit<double> d64(p, o);
      d64.set_state(q);
      d64.run();
      const auto j64 = d64.jacobian();
      CHECK(max_rel(d64.residual(), ref_r) < 1e-12);
      CHECK(max_rel(j64.diag, ref.diag) < 1e-12);
      CHECK(max_rel(j64.off.values, ref.off.values) < 1e-12);
      test::GpuSplit<float> d32(p, o);
      d32.set_state(q);
      d32.run();
      CHECK(max_rel(as_double(d32.jacobian().off.values), ref.off.values) < 1e-6);
      if (variant == 1) {
        d64.run();
        const auto again = d64.jacobian();
        CHECK(again.diag == j64.diag);
        CHECK(again.off.values == j64.off.values);
      }
    }
  }

  TEST_CASE("GPU staged gather: owned rows, no atomics, bit-identical across runs" *
            test::needs_gpu()) {
    // Tet edge mesh (one writer per off slot) with the far-field term (k = 1, added after
    // the edge kernel stored the rows), natural and randomly renumbered nodes.
    const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(9, 8, 7));
    for (bool shuffle : {false, true}) {
      CAPTURE(shuffle);
      const Problem natural = cfd::roe_problem(em);
      Problem p(natural.n_nodes(), 5);
      std::vector<int32_t> perm(natural.n_nodes());
      std::iota(perm.begin(), perm.end(), 0);
      if (shuffle) std::shuffle(perm.begin(), perm.end(), std::mt19937(51));
      for (size_t ti = 0; ti < natural.n_terms(); ++ti) {
        assembly::Term t = natural.term(ti);
        for (auto& v : t.elements.conn) v = perm[v];
        p.add_term(std::move(t));
      }
      const auto q = cfd::perturbed_state(p.n_nodes(), {}, 0.2, 52);
      const auto ref_r = test::serial(p).residual(q);
      const auto ref = test::serial(p).jacobian_split<double>(q);
      std::vector<std::vector<double>> runs;
      for (int tile : {64, 32}) {
        for (bool single : {false, true}) {
          FusedOptions o;
          o.strategy = "staged-gather";
          o.layout = {1, tile};
          o.single_tangents = single;
          test::GpuSplit<double> d(p, o);
          d.set_state(q);
          d.run();
          CAPTURE(d.kernels()[0].symbol);
          CHECK(d.kernels()[0].symbol.find("sdo") != std::string::npos);
          d.run();  // stored rows and Aoff: a second run must not accumulate
          const auto j = d.jacobian();
          const double tol = single ? 2e-5 : 1e-12;
          CHECK(max_rel(d.residual(), ref_r) < 1e-12);
          CHECK(max_rel(j.diag, ref.diag) < tol);
          CHECK(max_rel(j.off.values, ref.off.values) < tol);
          if (single) continue;
          std::vector<double> all = d.residual();
          all.insert(all.end(), j.diag.begin(), j.diag.end());
          all.insert(all.end(), j.off.values.begin(), j.off.values.end());
          d.run();
          const auto again = d.jacobian();
          CHECK(d.residual() == std::vector<double>(all.begin(), all.begin() + ref_r.size()));
          CHECK(again.diag == j.diag);
          CHECK(again.off.values == j.off.values);
          runs.push_back(std::move(all));
        }
      }
      // Tiles of 64 and 32 sum the same terms in the same order, and neither kernel leaves
      // ptxas a multiply-add to fuse: the same bits.
      REQUIRE(runs.size() == 2);
      CHECK(same_bits(runs[1], runs[0]));
      // Residual only, fp32 Aoff.
      FusedOptions ro;
      ro.strategy = "staged-gather";
      ro.jacobian = false;
      test::GpuSplit<float> res(p, ro);
      res.set_state(q);
      res.run();
      CHECK(max_rel(res.residual(), ref_r) < 1e-12);
      FusedOptions o32;
      o32.strategy = "staged-gather";
      test::GpuSplit<float> d32(p, o32);
      d32.set_state(q);
      d32.run();
      const auto j32 = d32.jacobian();
      CHECK(max_rel(j32.diag, ref.diag) < 1e-12);
      CHECK(max_rel(as_double(j32.off.values), ref.off.values) < 1e-6);
    }
  }

  TEST_CASE("GPU staged gather: a hub node with more elements than a tile runs several tiles" *
            test::needs_gpu()) {
    // Node 0 is vertex 0 of 300 edges and node 1 vertex 1 of 150: blocks of their own with
    // several tiles of 64 (or 32) per side, next to ordinary ones.
    Problem p = roe_edges(400, 500, 53);
    assembly::Term hub = p.term(0);
    hub.name = "hub";
    hub.elements.conn.clear();
    hub.params.clear();
    std::mt19937_64 rng(54);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int32_t j = 2; j < 302; ++j) hub.elements.conn.insert(hub.elements.conn.end(), {0, j});
    for (int32_t j = 2; j < 152; ++j)
      hub.elements.conn.insert(hub.elements.conn.end(), {j + 200, 1});
    for (size_t i = 0; i < hub.elements.conn.size() / 2 * 3; ++i) hub.params.push_back(u(rng));
    p.add_term(std::move(hub));
    const auto q = roe_state(400, 55);
    const auto ref_r = test::serial(p).residual(q);
    const auto ref = test::serial(p).jacobian_split<double>(q);
    for (int tile : {64, 32}) {
      FusedOptions o;
      o.strategy = "staged-gather";
      o.layout = {1, tile};
      test::GpuSplit<double> d(p, o);
      d.set_state(q);
      d.run();
      CAPTURE(d.kernels()[1].symbol);
      d.run();
      const auto j = d.jacobian();
      CHECK(max_rel(d.residual(), ref_r) < 1e-12);
      CHECK(max_rel(j.diag, ref.diag) < 1e-12);
      CHECK(max_rel(j.off.values, ref.off.values) < 1e-12);
    }
  }

  TEST_CASE(
      "GPU gather by column: the same bits for any tile, staged, unstaged or warp-specialised, "
      "and on the CPU" *
      test::needs_gpu()) {
    // A tet edge mesh with its far-field term (one writer per off slot), and random edges
    // with two hub nodes (runs over several tiles). The Roe flux uses only correctly rounded
    // operations (+ - * / sqrt fabs), so with no FMA contraction on either side the GPU's
    // bits are the CPU's.
    std::vector<Problem> problems;
    problems.push_back(cfd::roe_problem(cfd::build_edge_mesh(cfd::box_tet_mesh(7, 6, 5))));
    problems.push_back(roe_edges(300, 400, 57));
    {
      Problem& p = problems.back();
      assembly::Term hub = p.term(0);
      hub.name = "hub";
      hub.elements.conn.clear();
      for (int32_t j = 2; j < 202; ++j) hub.elements.conn.insert(hub.elements.conn.end(), {0, j});
      for (int32_t j = 2; j < 132; ++j)
        hub.elements.conn.insert(hub.elements.conn.end(), {j + 150, 1});
      hub.params.assign(p.term(0).params.begin(),
                        p.term(0).params.begin() + hub.elements.conn.size() / 2 * 3);
      p.add_term(std::move(hub));
    }
    for (Problem& p : problems) {
      CAPTURE(p.term(0).name);
      const auto q = roe_state(p.n_nodes(), 58);
      FusedOptions o;
      o.strategy = "staged-gather";
      std::vector<double> host_r(q.size(), 0.0);
      auto host_j = mesh::SplitBlockCsr<double>::zeros(p.off_pattern(), 5, 5);
      test::assemble_on_cpu(p, q, o, host_r, host_j);
      const std::vector<double> host = all_of(host_r, host_j);
      CHECK(max_rel(host_r, test::serial(p).residual(q)) < 1e-12);
      std::vector<std::vector<double>> gpu;
      for (const auto& [mode, tile] : {std::pair{1, 64}, {1, 32}, {0, 64}, {2, 64}, {2, 32}}) {
        FusedOptions g = o;  // mode: 0 unstaged, 1 staged, 2 staged and warp-specialised
        g.strategy = mode == 0   ? "gather-by-column"
                     : mode == 1 ? "staged-gather"
                                 : "warp-specialized-gather";
        g.layout = {1, tile};
        test::GpuSplit<double> d(p, g);
        d.set_state(q);
        d.run();
        CAPTURE(d.kernels()[0].symbol);
        gpu.push_back(all_of(d.residual(), d.jacobian()));
        CHECK(same_bits(gpu.back(), gpu.front()));
        // Off by round-off at most, if not the same bits (then the message says how far).
        CHECK_MESSAGE(same_bits(gpu.back(), host), "GPU against CPU: ", max_rel(gpu.back(), host));
      }
    }
  }

  TEST_CASE("GPU assembly on a non-blocking stream: zeroing is ordered before the kernels" *
            test::needs_gpu()) {
    // Back-to-back assemblies on a stream that does not wait for the legacy stream: were the
    // zeroing enqueued elsewhere, it could land in the middle of a kernel (or after it) and the
    // atomic strategies would add onto stale sums. Every result must equal the host's.
    Problem p = roe_edges(3000, 20000, 61);
    const auto q = roe_state(3000, 62);
    const auto ref_r = test::serial(p).residual(q);
    const auto ref = test::serial(p).jacobian_split<double>(q);
    cuda::Stream stream;
    for (const char* strategy : {"scatter-atomic", "staged-scatter", "gather-by-column"}) {
      CAPTURE(strategy);
      FusedOptions o;
      o.strategy = strategy;
      test::GpuSplit<double> d(p, o);
      d.set_state(q);
      cuda::Context::primary().synchronize();
      for (int i = 0; i < 20; ++i) d.run(stream.handle());
      stream.synchronize();
      const auto j = d.jacobian();
      CHECK(max_rel(d.residual(), ref_r) < 1e-12);
      CHECK(max_rel(j.diag, ref.diag) < 1e-12);
      CHECK(max_rel(j.off.values, ref.off.values) < 1e-12);
    }
  }
}
