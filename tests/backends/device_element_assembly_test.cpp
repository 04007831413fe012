// GPU assembly of Problem outputs (DeviceElementAssembly) against the host Problem. The gather
// tables and the assembly kernels themselves also run in CI: the kernels' host build is applied to
// the host element results and must reproduce the host Problem; the NVRTC build must compile for
// sm_90. The "gpu" cases skip cleanly without a device.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <cstring>
#include <random>

#include "backends/assembly/device_element_assembly.h"
#include "backends/cpu/host_compiler.h"
#include "backends/mesh/export.h"
#include "support/assembly.h"
#include "support/element_problems.h"
#include "support/gpu.h"
#include "support/nvrtc_module.h"
#include "support/test_kernels.h"

using namespace dualjit;
using assembly::Problem;
using assembly::Term;
using test::energy_problem;
using test::max_rel;
using test::roe_state;
using test::uniform;
using test::vector_problem;

namespace {

bool bit_identical(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// The assembly kernels built for the host: the code the GPU runs, applied to the host
// Problem's element results in the same sequence DeviceElementAssembly launches them.
class HostFusedAssembly {
 public:
  HostFusedAssembly()
      : lib_(cpu::host_compile("dualjit_assembly",
                               assembly::assembly_source(assembly::AssemblyTarget::Host),
                               cpu::HostCompileOptions{})
                 .shared_object,
             "dualjit_assembly") {
    rows_ = lib_.function<void(const assembly::GatherRowsArgs*, long long)>(
        std::string(assembly::kRowsEntry) + "_host");
    blocks_ = lib_.function<void(const assembly::GatherBlocksArgs*, long long)>(
        std::string(assembly::kBlocksEntry) + "_host");
    untile_ = lib_.function<void(const assembly::UntileArgs*, long long)>(
        std::string(assembly::kUntileEntry) + "_host");
  }

  // Gradient (Mode::Gradient), H v (Mode::Hvp) or residual (Mode::Value of vector terms).
  std::vector<double> vector(Problem& p, Mode mode, const std::vector<double>& x,
                             const std::vector<double>& v = {}) const {
    const bool energy = mode != Mode::Value;
    std::vector<double> out(x.size(), -1.0);
    bool accumulate = false;
    for (size_t ti = 0; ti < p.n_terms(); ++ti) {
      const Term& t = p.term(ti);
      if (t.energy != energy) continue;
      const auto local = test::serial(p).element_results(ti, mode, x, v);
      const auto& src = mode == Mode::Gradient ? local.first
                        : mode == Mode::Hvp    ? local.second
                                               : local.values;
      const auto rules = energy ? assembly::input_rows(t, p.block_size())
                                : assembly::residual_rows(t, p.block_size());
      const mesh::Incidence inc = mesh::build_incidence(p.n_nodes(), t.elements);
      const assembly::GatherRowsArgs a{
          inc.ptr.data(),   inc.element.data(),  inc.local_vertex.data(),
          rules.ptr.data(), rules.offset.data(), rules.sign.data(),
          src.data(),       rules.stride,        p.block_size(),
          out.data(),       accumulate ? 1 : 0};
      rows_(&a, static_cast<long long>(out.size()));
      accumulate = true;
    }
    return out;
  }

  // Hessian of the energy terms or Jacobian of the vector terms, over p.pattern(symmetry).
  mesh::BlockCsr<double> matrix(Problem& p, bool hessian, mesh::Symmetry symmetry,
                                const std::vector<double>& x) const {
    const int B = p.block_size();
    auto m = mesh::BlockCsr<double>::zeros(p.pattern(symmetry), B, B);
    std::fill(m.values.begin(), m.values.end(), -1.0);  // every entry must be written
    bool accumulate = false;
    for (size_t ti = 0; ti < p.n_terms(); ++ti) {
      const Term& t = p.term(ti);
      if (t.energy != hessian) continue;
      const auto local =
          test::serial(p).element_results(ti, hessian ? Mode::Hessian : Mode::Jacobian, x);
      const auto& src = hessian ? local.second : local.first;
      const auto entries =
          hessian ? assembly::hessian_entries(t, B) : assembly::jacobian_entries(t, B);
      const auto slots = assembly::slot_gather(p.pattern(symmetry), ti);
      const assembly::GatherBlocksArgs a{slots.ptr.data(),    slots.item.data(),
                                         entries.ptr.data(),  entries.offset.data(),
                                         entries.sign.data(), src.data(),
                                         entries.stride,      int64_t(t.elements.k) * t.elements.k,
                                         int64_t(B) * B,      m.values.data(),
                                         accumulate ? 1 : 0};
      blocks_(&a, static_cast<long long>(m.values.size()));
      accumulate = true;
    }
    return m;
  }

  // The device's energy: each term's elements, then the terms' totals, in sum_groups' order.
  double energy(Problem& p, const std::vector<double>& x) const {
    std::vector<double> totals;
    for (size_t ti = 0; ti < p.n_terms(); ++ti) {
      if (p.term(ti).energy)
        totals.push_back(
            assembly::ordered_sum(test::serial(p).element_results(ti, Mode::Value, x).values));
    }
    return assembly::ordered_sum(totals);
  }

  // Element blocks from tiles (jit::FirstStores::Tiled), cell- or component-major; cell-major
  // with column_rows > 0, each block column-major.
  std::vector<double> untile(const std::vector<double>& tiles, int64_t elements, int64_t entries,
                             bool component_major, int64_t column_rows = 0) const {
    std::vector<double> out(static_cast<size_t>(elements * entries), -1.0);
    const assembly::UntileArgs a{
        tiles.data(), elements, entries, out.data(), component_major ? 1 : 0, column_rows};
    untile_(&a, static_cast<long long>(assembly::untile_threads(elements, entries)));
    return out;
  }

 private:
  cpu::SharedObject lib_;
  void (*rows_)(const assembly::GatherRowsArgs*, long long) = nullptr;
  void (*blocks_)(const assembly::GatherBlocksArgs*, long long) = nullptr;
  void (*untile_)(const assembly::UntileArgs*, long long) = nullptr;
};

const HostFusedAssembly& host_assembly() {
  static const HostFusedAssembly h;
  return h;
}

// y = A x read the way cusparse<t>bsrmv reads a BSR matrix (zero-based, row-major blocks).
Eigen::MatrixXd dense_from_bsr(const std::vector<int32_t>& row_ptr,
                               const std::vector<int32_t>& col_idx,
                               const std::vector<double>& values, int block_dim) {
  const int mb = static_cast<int>(row_ptr.size()) - 1;
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(mb * block_dim, mb * block_dim);
  for (int r = 0; r < mb; ++r) {
    for (int32_t i = row_ptr[r]; i < row_ptr[r + 1]; ++i) {
      for (int u = 0; u < block_dim; ++u) {
        for (int w = 0; w < block_dim; ++w) {
          a(r * block_dim + u, col_idx[i] * block_dim + w) =
              values[(int64_t(i) * block_dim + u) * block_dim + w];
        }
      }
    }
  }
  return a;
}

}  // namespace

TEST_CASE("slot gather: every stored element pair once, in its block, in element order") {
  // 5 nodes; edges and a triangle sharing nodes, so that blocks receive several pairs.
  const mesh::ElementSet edges{"edges", 2, {0, 1, 1, 2, 2, 0, 3, 2, 4, 3}};
  const mesh::ElementSet tris{"tris", 3, {2, 1, 3}};
  for (auto symmetry : {mesh::Symmetry::General, mesh::Symmetry::Upper}) {
    CAPTURE(static_cast<int>(symmetry));
    const auto pattern = mesh::BlockPattern::build(5, {&edges, &tris}, symmetry);
    for (size_t set = 0; set < 2; ++set) {
      const int k = pattern.set_k(set);
      const auto& slots = pattern.element_slots(set);
      const auto& transposed = pattern.transposed(set);
      const assembly::SlotGather g = assembly::slot_gather(pattern, set);
      REQUIRE(g.ptr.size() == static_cast<size_t>(pattern.n_blocks() + 1));
      CHECK(g.ptr.front() == 0);
      std::vector<int> seen(slots.size(), 0);
      for (int64_t s = 0; s < pattern.n_blocks(); ++s) {
        for (int64_t i = g.ptr[s]; i < g.ptr[s + 1]; ++i) {
          CHECK(slots[g.item[i]] == s);
          if (i > g.ptr[s]) CHECK(g.item[i] > g.item[i - 1]);
          ++seen[g.item[i]];
        }
      }
      int64_t kept = 0;
      for (size_t i = 0; i < slots.size(); ++i) {
        const bool skip = !transposed.empty() && transposed[i];
        CHECK(seen[i] == (skip ? 0 : 1));
        kept += skip ? 0 : 1;
      }
      CHECK(g.ptr.back() == kept);
      // Each element keeps its k diagonal pairs and, with Upper, one of each off-diagonal pair.
      const int64_t ne = static_cast<int64_t>(slots.size()) / (k * k);
      CHECK(kept == (symmetry == mesh::Symmetry::Upper ? ne * k * (k + 1) / 2 : ne * k * k));
    }
    // Node 2's diagonal block: edges 1, 2, 3 and the triangle.
    const int64_t d2 = pattern.diag_index(2);
    CHECK(assembly::slot_gather(pattern, 0).ptr[d2 + 1] -
              assembly::slot_gather(pattern, 0).ptr[d2] ==
          3);
    CHECK(assembly::slot_gather(pattern, 1).ptr[d2 + 1] -
              assembly::slot_gather(pattern, 1).ptr[d2] ==
          1);
  }
  const auto split = mesh::BlockPattern::build(5, {&edges}).without_diagonal();
  CHECK_THROWS_WITH_AS(assembly::slot_gather(split, 0), doctest::Contains("'edges'"),
                       mesh::MeshError);
}

TEST_CASE("gather tables: rows and entries follow the binding, scatter signs and packing") {
  Problem p = energy_problem(8, 3);
  const Term& tri = p.term(1);  // spring on vertices (2, 0) of triangles
  const auto rows = assembly::input_rows(tri, 3);
  CHECK(rows.ptr == std::vector<int32_t>{0, 1, 1, 2});  // vertex 1 has no slot
  CHECK(rows.offset == std::vector<int32_t>{3, 0});     // vertex 0 <- slot 1, vertex 2 <- slot 0
  CHECK(rows.stride == 6);
  const auto h = assembly::hessian_entries(tri, 3);
  CHECK(h.stride == 21);
  REQUIRE(h.ptr.size() == 9 * 9 + 1);
  const auto entry = [&](int a, int b, int i, int j) { return ((a * 3 + b) * 3 + i) * 3 + j; };
  // (a, b) = (0, 2): slots (1, 0), H(3 + i, j) stored as H(j, 3 + i).
  const int q = entry(0, 2, 1, 2);
  REQUIRE(h.ptr[q + 1] - h.ptr[q] == 1);
  CHECK(h.offset[h.ptr[q]] == static_cast<int32_t>(packed_upper_index(6, 2, 4)));
  const int z = entry(1, 0, 0, 0);
  CHECK(h.ptr[z + 1] == h.ptr[z]);  // vertex 1 carries no input

  Problem v = vector_problem(10, 4);
  const Term& faces = v.term(1);  // inputs (1, 2), rules {1: +1, 2: -1, 0: +0.5}
  const auto r = assembly::residual_rows(faces, 5);
  CHECK(r.ptr == std::vector<int32_t>{0, 1, 2, 3});
  CHECK(r.sign == std::vector<double>{0.5, 1.0, -1.0});
  const auto j = assembly::jacobian_entries(faces, 5);
  CHECK(j.stride == 50);
  const auto jq = [&](int a, int b, int i, int c) { return ((a * 3 + b) * 5 + i) * 5 + c; };
  const int q0 = jq(0, 2, 3, 4);  // d(0.5 F_3)/d(QR_4): slot 1 is vertex 2
  REQUIRE(j.ptr[q0 + 1] - j.ptr[q0] == 1);
  CHECK(j.offset[j.ptr[q0]] == 3 * 10 + 5 + 4);
  CHECK(j.sign[j.ptr[q0]] == 0.5);
  const int q1 = jq(1, 0, 0, 0);  // vertex 0 has no input
  CHECK(j.ptr[q1 + 1] == j.ptr[q1]);
}

TEST_CASE("BSR index arrays read as cuSPARSE reads them give the host matrices") {
  Problem p = energy_problem(12, 5);
  std::mt19937_64 rng(6);
  const auto x = uniform(36, -1.0, 1.0, rng);
  const auto h = test::serial(p).hessian(x);
  const auto ix = assembly::bsr_index(p.pattern());
  CHECK(ix.row_ptr.size() == 13);
  CHECK(ix.col_idx.size() == static_cast<size_t>(p.pattern().n_blocks()));
  const Eigen::MatrixXd a = dense_from_bsr(ix.row_ptr, ix.col_idx, h.values, 3);
  const Eigen::MatrixXd ref(mesh::to_eigen(h));
  CHECK((a - ref).norm() == 0.0);
  CHECK(ref.norm() > 1.0);
  // Upper: the stored triangle, the rest recovered by symmetry.
  const auto hu = test::serial(p).hessian(x, mesh::Symmetry::Upper);
  const auto iu = assembly::bsr_index(p.pattern(mesh::Symmetry::Upper));
  Eigen::MatrixXd u = dense_from_bsr(iu.row_ptr, iu.col_idx, hu.values, 3);
  for (int r = 0; r < 12; ++r) {
    for (int32_t i = iu.row_ptr[r]; i < iu.row_ptr[r + 1]; ++i) CHECK(iu.col_idx[i] >= r);
  }
  const Eigen::MatrixXd upper_blocks = u;
  for (int r = 0; r < 36; ++r) {
    for (int c = 0; c < 36; ++c) {
      if (c / 3 < r / 3) u(r, c) = upper_blocks(c, r);
    }
  }
  CHECK((u - ref).norm() < 1e-14 * ref.norm());
}

TEST_CASE("assembly kernels compile under NVRTC for sm_90 without a GPU") {
  jit::CompileOptions o;
  o.arch = "sm_90";
  const std::string source = assembly::assembly_source(assembly::AssemblyTarget::Cuda);
  test::check_module_compiles(
      "dualjit_assembly", source,
      {assembly::kRowsEntry, assembly::kBlocksEntry, assembly::kSumEntry, assembly::kUntileEntry,
       assembly::kUntileCellsEntry, assembly::kFillEntry});
  // Through the kernel cache: the second request is served from memory.
  jit::KernelCache cache(std::nullopt);
  const auto first = cuda::source_image("dualjit_assembly", source, o, cache);
  const auto again = cuda::source_image("dualjit_assembly", source, o, cache);
  CHECK(first == again);
  CHECK(cache.stats().misses == 1);
  CHECK(cache.stats().memory_hits == 1);
  jit::CompileOptions o80 = o;
  o80.arch = "sm_80";
  CHECK(cuda::source_cache_key(source, o).hex() != cuda::source_cache_key(source, o80).hex());
  CHECK(cuda::source_cache_key(source, o).hex() != cuda::source_cache_key(source + "\n", o).hex());
}

TEST_CASE("host build of the assembly kernels reproduces the host Problem: energy terms") {
  const HostFusedAssembly& k = host_assembly();
  Problem p = energy_problem(40, 7);
  std::mt19937_64 rng(8);
  const auto x = uniform(120, -1.0, 1.0, rng), v = uniform(120, -1.0, 1.0, rng);
  CHECK(max_rel(k.vector(p, Mode::Gradient, x), test::serial(p).gradient(x)) < 1e-13);
  CHECK(max_rel(k.vector(p, Mode::Hvp, x, v), test::serial(p).hvp(x, v)) < 1e-13);
  for (auto symmetry : {mesh::Symmetry::General, mesh::Symmetry::Upper}) {
    CHECK(max_rel(k.matrix(p, true, symmetry, x).values,
                  test::serial(p).hessian(x, symmetry).values) < 1e-13);
  }
  const double e = test::serial(p).energy(x);
  CHECK(std::abs(k.energy(p, x) - e) < 1e-13 * std::max(1.0, std::abs(e)));
}

TEST_CASE("ordered_sum: the plain sum to round-off, one order per length") {
  std::mt19937_64 rng(15);
  // One group, several, and the most groups (past 1024 * 256 * 16 values, more per lane).
  for (int64_t n :
       {int64_t(0), int64_t(1), int64_t(255), int64_t(4097), int64_t(1000003), int64_t(6000000)}) {
    CAPTURE(n);
    const auto values = uniform(n, 0.0, 1.0, rng);
    double plain = 0;
    for (double v : values) plain += v;
    const double s = assembly::ordered_sum(values);
    CHECK(std::abs(s - plain) <= 1e-12 * std::max(1.0, plain));
    CHECK(s == assembly::ordered_sum(values));
    CHECK(assembly::sum_groups(n) >= 1);
    CHECK(assembly::sum_groups(n) <= 1024);
  }
  CHECK(assembly::ordered_sum(std::vector<double>{}) == 0.0);
  CHECK(assembly::ordered_sum(std::vector<double>{2.5}) == 2.5);
  // Not the left-to-right order: 1 + 1e16 - 1e16 ... differs from it somewhere.
  std::vector<double> cancel(5000, 1.0);
  cancel[0] = 1e16;
  cancel[4096] = -1e16;
  double left = 0;
  for (double v : cancel) left += v;
  CHECK(assembly::ordered_sum(cancel) != left);
}

TEST_CASE("host build of the assembly kernels reproduces the host Problem: vector terms") {
  const HostFusedAssembly& k = host_assembly();
  Problem p = vector_problem(30, 9);
  const auto q = roe_state(30, 10);
  CHECK(max_rel(k.vector(p, Mode::Value, q), test::serial(p).residual(q)) < 1e-13);
  const auto jac = k.matrix(p, false, mesh::Symmetry::General, q);
  CHECK(max_rel(jac.values, test::serial(p).jacobian(q).values) < 1e-13);
  const auto cell = test::serial(p).element_jacobians(1, q, assembly::BlockOrder::CellMajor);
  const int64_t ne = p.term(1).elements.size();
  // The blocks as the element kernels store them: tiles of 32 elements, the last one partial.
  std::vector<double> tiles((ne + 31) / 32 * 32 * 50, -2.0);
  for (int64_t e = 0; e < ne; ++e)
    for (int64_t i = 0; i < 50; ++i) tiles[((e / 32) * 50 + i) * 32 + e % 32] = cell[e * 50 + i];
  CHECK(k.untile(tiles, ne, 50, false) == cell);
  CHECK(k.untile(tiles, ne, 50, true) ==
        test::serial(p).element_jacobians(1, q, assembly::BlockOrder::ComponentMajor));
}

TEST_CASE("host build of the untile kernel: every element count and entry count, partial tiles") {
  const HostFusedAssembly& k = host_assembly();
  for (int64_t ne : {1, 3, 4, 31, 32, 33, 70, 129}) {
    for (int64_t fs : {1, 5, 54}) {
      CAPTURE(ne);
      CAPTURE(fs);
      const int64_t rows = fs == 54 ? 6 : fs, cols = fs / rows;  // column-major blocks of rows
      std::vector<double> tiles((ne + 31) / 32 * 32 * fs, -2.0), cell(ne * fs), comp(ne * fs),
          columns(ne * fs);
      for (int64_t e = 0; e < ne; ++e) {
        for (int64_t i = 0; i < fs; ++i) {
          const double v = 1000.0 * e + i + 0.5;
          tiles[((e / 32) * fs + i) * 32 + e % 32] = v;
          cell[e * fs + i] = v;
          comp[i * ne + e] = v;
          columns[e * fs + (i % cols) * rows + i / cols] = v;
        }
      }
      CHECK(k.untile(tiles, ne, fs, false) == cell);
      CHECK(k.untile(tiles, ne, fs, true) == comp);
      CHECK(k.untile(tiles, ne, fs, false, rows) == columns);
    }
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("the GPU's cell-major untile: element and entry counts, partial tiles and chunks" *
            test::needs_gpu()) {
    const cuda::SourceModule module("dualjit_assembly",
                                    assembly::assembly_source(assembly::AssemblyTarget::Cuda));
    for (int64_t ne : {1, 31, 32, 33, 70, 1000}) {
      for (int64_t fs : {1, 5, 54, 64, 65, 2916}) {
        // Row-major blocks, then column-major ones of `rows` rows (54 x 54 for 2,916).
        const int64_t rows = fs == 2916 ? 54 : fs == 64 ? 8 : fs, cols = fs / rows;
        for (int64_t column_rows : {int64_t{0}, rows}) {
          CAPTURE(ne);
          CAPTURE(fs);
          CAPTURE(column_rows);
          std::vector<double> tiles((ne + 31) / 32 * 32 * fs, -2.0), cell(ne * fs);
          for (int64_t e = 0; e < ne; ++e) {
            for (int64_t i = 0; i < fs; ++i) {
              const double v = 1000.0 * e + i + 0.5;
              tiles[((e / 32) * fs + i) * 32 + e % 32] = v;
              cell[e * fs + (column_rows ? (i % cols) * rows + i / cols : i)] = v;
            }
          }
          const auto in = cuda::DeviceBuffer::from(tiles);
          auto out = cuda::DeviceBuffer::from(std::vector<double>(cell.size() + 1, -3.0));
          assembly::untile_cells(module,
                                 {reinterpret_cast<const double*>(in.get()), ne, fs,
                                  reinterpret_cast<double*>(out.get()), 0, column_rows},
                                 nullptr);
          std::vector<double> got = out.to_vector<double>();
          CHECK(got.back() == -3.0);  // nothing past the blocks
          got.pop_back();
          CHECK(got == cell);
        }
      }
    }
  }

  TEST_CASE("DeviceElementAssembly equals the host Problem: energy, gradient, Hessian, HVP" *
            test::needs_gpu()) {
    Problem p = energy_problem(300, 11);
    std::mt19937_64 rng(12);
    const auto x = uniform(900, -1.0, 1.0, rng), v = uniform(900, -1.0, 1.0, rng);
    assembly::DeviceElementAssembly d(p);
    const double e = test::serial(p).energy(x);
    CHECK(std::abs(d.energy(x) - e) < 1e-12 * std::max(1.0, std::abs(e)));
    const auto g = d.gradient(x);
    CHECK(max_rel(g, test::serial(p).gradient(x)) < 1e-12);
    const auto hv = d.hvp(x, v);
    CHECK(max_rel(hv, test::serial(p).hvp(x, v)) < 1e-12);
    const auto h = d.hessian(x);
    CHECK(max_rel(h.values, test::serial(p).hessian(x).values) < 1e-12);
    const auto hu = d.hessian(x, mesh::Symmetry::Upper);
    CHECK(max_rel(hu.values, test::serial(p).hessian(x, mesh::Symmetry::Upper).values) < 1e-12);
    // H v from the device Hessian equals the device HVP.
    const Eigen::VectorXd Hv =
        Eigen::MatrixXd(mesh::to_eigen(h)) * Eigen::Map<const Eigen::VectorXd>(v.data(), v.size());
    CHECK((Eigen::Map<const Eigen::VectorXd>(hv.data(), hv.size()) - Hv).norm() <
          1e-12 * Hv.norm());
    // Bit-identical repeats (also after other outputs ran in between).
    CHECK(d.energy(x) == d.energy(x));
    CHECK(bit_identical(d.gradient(x), g));
    CHECK(bit_identical(d.hvp(x, v), hv));
    CHECK(bit_identical(d.hessian(x).values, h.values));
    CHECK(bit_identical(d.hessian(x, mesh::Symmetry::Upper).values, hu.values));
  }

  TEST_CASE("DeviceElementAssembly equals the host Problem: residual, Jacobian, element Jacobians" *
            test::needs_gpu()) {
    Problem p = vector_problem(200, 13);
    const auto q = roe_state(200, 14);
    assembly::DeviceElementOptions o;
    o.width = 5;
    o.layout = {1, 64};
    assembly::DeviceElementAssembly d(p, o);
    const auto r = d.residual(q);
    CHECK(max_rel(r, test::serial(p).residual(q)) < 1e-12);
    const auto j = d.jacobian(q);
    CHECK(max_rel(j.values, test::serial(p).jacobian(q).values) < 1e-12);
    for (size_t ti = 0; ti < p.n_terms(); ++ti) {
      for (auto order : {assembly::BlockOrder::CellMajor, assembly::BlockOrder::ComponentMajor}) {
        CAPTURE(ti);
        CHECK(max_rel(d.element_jacobians(ti, q, order),
                      test::serial(p).element_jacobians(ti, q, order)) < 1e-12);
      }
    }
    // The first 37 elements only: their blocks, bit for bit, first in the results.
    {
      const auto all = d.element_jacobians(0, q);
      const size_t per = all.size() / p.term(0).elements.size();
      d.run_element_jacobians(0, assembly::BlockOrder::CellMajor, nullptr, false, 37);
      std::vector<double> prefix(37 * per);
      dualjit::cuda::download(prefix.data(), d.element_jacobians_device(),
                              prefix.size() * sizeof(double));
      CHECK(bit_identical(prefix, std::vector<double>(all.begin(), all.begin() + 37 * per)));
      CHECK_THROWS_AS(d.run_element_jacobians(0, assembly::BlockOrder::CellMajor, nullptr, false,
                                              1 + static_cast<int64_t>(p.term(0).elements.size())),
                      assembly::ProblemError);
    }
    CHECK(bit_identical(d.residual(q), r));
    CHECK(bit_identical(d.jacobian(q).values, j.values));
    // No energy terms: energy, gradient and Hessian are zero, not stale memory.
    CHECK(d.energy(q) == 0.0);
    CHECK(d.gradient(q) == std::vector<double>(q.size(), 0.0));
  }

  TEST_CASE("DeviceElementAssembly: energies are summed in ordered_sum's order, bit for bit" *
            test::needs_gpu()) {
    // Each element's energy is its param exactly, so the device's energy must equal
    // ordered_sum of the params (then of the one term's total) to the last bit: one group,
    // several, and the most groups (more values per lane).
    std::mt19937_64 rng(16);
    for (int64_t n : {int64_t(1), int64_t(300), int64_t(70001), int64_t(6000000)}) {
      CAPTURE(n);
      Problem p(n, 3);
      Term t;
      t.name = "weights";
      t.kernel = std::make_shared<Kernel>("weight", [](KernelBuilder& kb) {
        auto x = kb.input_vec<3>("x");
        auto w = kb.param("w", 1);
        kb.output("e", w[0] + 0.0 * x[0]);
      });
      t.elements = {"vertices", 1, {}};
      for (int32_t i = 0; i < n; ++i) t.elements.conn.push_back(i);
      t.params = uniform(n, -1.0, 1.0, rng);
      t.energy = true;
      const std::vector<double> w = t.params;
      p.add_term(std::move(t));
      assembly::DeviceElementAssembly d(p);
      const double e = d.energy(std::vector<double>(3 * n, 0.5));
      CHECK(e == assembly::ordered_sum(std::vector<double>{assembly::ordered_sum(w)}));
      CHECK(d.energy(std::vector<double>(3 * n, 0.5)) == e);  // the counter was reset
    }
  }

  TEST_CASE("DeviceElementAssembly, in place: every output equals the host Problem" *
            test::needs_gpu()) {
    using assembly::ElementStrategy;
    Problem p = energy_problem(300, 21);
    std::mt19937_64 rng(22);
    const auto x = uniform(900, -1.0, 1.0, rng), v = uniform(900, -1.0, 1.0, rng);
    for (auto [strategy, width] : {std::pair{ElementStrategy::Scatter, 0},
                                   {ElementStrategy::Scatter, 2},
                                   {ElementStrategy::NodeGather, 0},
                                   {ElementStrategy::NodeGather, 2},
                                   {ElementStrategy::StagedNodeGather, 0},
                                   {ElementStrategy::StagedNodeGather, 2}}) {
      CAPTURE(assembly::element_strategy_name(strategy));
      CAPTURE(width);
      assembly::DeviceElementOptions o;
      o.vector_strategy = o.matrix_strategy = strategy;
      o.width = width;
      assembly::DeviceElementAssembly d(p, o);
      CHECK(max_rel(d.gradient(x), test::serial(p).gradient(x)) < 1e-12);
      CHECK(max_rel(d.hvp(x, v), test::serial(p).hvp(x, v)) < 1e-12);
      for (auto sym : {mesh::Symmetry::General, mesh::Symmetry::Upper}) {
        CHECK(max_rel(d.hessian(x, sym).values, test::serial(p).hessian(x, sym).values) < 1e-12);
      }
      // A second output after the first: the outputs are zeroed, not accumulated.
      CHECK(max_rel(d.gradient(x), test::serial(p).gradient(x)) < 1e-12);
      if (strategy != ElementStrategy::Scatter) {  // one writer per row: repeats agree
        CHECK(bit_identical(d.gradient(x), d.gradient(x)));
        CHECK(bit_identical(d.hvp(x, v), d.hvp(x, v)));
        CHECK(bit_identical(d.hessian(x).values, d.hessian(x).values));
      }
    }
    Problem vp = vector_problem(200, 23);
    const auto q = roe_state(200, 24);
    for (auto strategy : {ElementStrategy::Scatter, ElementStrategy::NodeGather,
                          ElementStrategy::StagedNodeGather}) {
      CAPTURE(assembly::element_strategy_name(strategy));
      assembly::DeviceElementOptions o;
      o.vector_strategy = o.matrix_strategy = strategy;
      o.width = 5;
      o.layout = {1, 64};
      assembly::DeviceElementAssembly d(vp, o);
      CHECK(max_rel(d.residual(q), test::serial(vp).residual(q)) < 1e-12);
      CHECK(max_rel(d.jacobian(q).values, test::serial(vp).jacobian(q).values) < 1e-12);
      CHECK(max_rel(d.jacobian(q).values, test::serial(vp).jacobian(q).values) < 1e-12);
      CHECK(d.gradient(q) == std::vector<double>(q.size(), 0.0));  // no energy terms
    }
  }

  TEST_CASE("Assembler (GPU): both element strategies agree with the host reference" *
            test::needs_gpu()) {
    Problem p = energy_problem(200, 25);
    std::mt19937_64 rng(26);
    const auto x = uniform(600, -1.0, 1.0, rng), v = uniform(600, -1.0, 1.0, rng);
    for (auto s :
         {assembly::ElementStrategy::Gather, assembly::ElementStrategy::Scatter,
          assembly::ElementStrategy::NodeGather, assembly::ElementStrategy::StagedNodeGather}) {
      CAPTURE(assembly::element_strategy_name(s));
      assembly::AssemblerOptions o = test::on_gpu();
      o.vector_strategy = o.matrix_strategy = s;
      assembly::Assembler a(p, o);
      CHECK(max_rel(a.gradient(x), test::serial(p).gradient(x)) < 1e-12);
      CHECK(max_rel(a.hvp(x, v), test::serial(p).hvp(x, v)) < 1e-12);
      CHECK(max_rel(a.hessian(x).values, test::serial(p).hessian(x).values) < 1e-12);
    }
  }

  TEST_CASE("DeviceElementAssembly: device BSR export multiplies like cuSPARSE bsrmv" *
            test::needs_gpu()) {
    Problem p = energy_problem(150, 15);
    std::mt19937_64 rng(16);
    const auto x = uniform(450, -1.0, 1.0, rng), v = uniform(450, -1.0, 1.0, rng);
    assembly::DeviceElementAssembly d(p);
    d.set_state(x);
    d.run_hessian();
    const assembly::DeviceBsr m = d.hessian_bsr();
    CHECK(m.mb == 150);
    CHECK(m.nb == 150);
    CHECK(m.block_dim == 3);
    CHECK(m.nnzb == p.pattern().n_blocks());
    CHECK(assembly::DeviceBsr::row_major_blocks);
    // y = A v over the exported arrays, read exactly as bsrmv with CUSPARSE_DIRECTION_ROW.
    const cuda::SourceModule spmv("bsr_spmv", R"(
extern "C" __global__ void bsr_spmv(int mb, int dim, const int* row_ptr, const int* col_idx,
                                    const double* values, const double* x, double* y) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= mb * dim) return;
  const int br = r / dim, u = r % dim;
  double s = 0.0;
  for (int i = row_ptr[br]; i < row_ptr[br + 1]; ++i)
    for (int w = 0; w < dim; ++w) s += values[((long long)i * dim + u) * dim + w] * x[col_idx[i] * dim + w];
  y[r] = s;
}
)");
    auto dv = cuda::DeviceBuffer::from(v);
    cuda::DeviceBuffer dy(v.size() * sizeof(double));
    int mb = m.mb, dim = m.block_dim;
    const void* row_ptr = m.row_ptr;
    const void* col_idx = m.col_idx;
    const void* values = m.values;
    CUdeviceptr xp = dv.get(), yp = dy.get();
    void* args[] = {&mb, &dim, &row_ptr, &col_idx, &values, &xp, &yp};
    cuda::launch(spmv.function("bsr_spmv"), {static_cast<unsigned>((v.size() + 127) / 128)}, {128},
                 0, args);
    cuda::check_last("bsr_spmv");
    const auto y = dy.to_vector<double>();
    const Eigen::VectorXd ref = Eigen::MatrixXd(mesh::to_eigen(test::serial(p).hessian(x))) *
                                Eigen::Map<const Eigen::VectorXd>(v.data(), v.size());
    CHECK((Eigen::Map<const Eigen::VectorXd>(y.data(), y.size()) - ref).norm() <
          1e-12 * ref.norm());
    const assembly::DeviceBsr u = d.hessian_bsr(mesh::Symmetry::Upper);
    CHECK(u.nnzb == p.pattern(mesh::Symmetry::Upper).n_blocks());
    CHECK(u.symmetry == mesh::Symmetry::Upper);
    CHECK(d.jacobian_bsr().nnzb == p.pattern().n_blocks());
  }

  TEST_CASE("DeviceElementAssembly: bad input names what is wrong" * test::needs_gpu()) {
    Problem p = energy_problem(20, 17);
    assembly::DeviceElementAssembly d(p);
    CHECK_THROWS_WITH_AS(d.gradient(std::vector<double>(59, 0.0)), doctest::Contains("expected 60"),
                         assembly::ProblemError);
    CHECK_THROWS_AS(d.run_element_jacobians(7), assembly::ProblemError);
    Term extra = p.term(2);
    p.add_term(extra);
    CHECK_THROWS_WITH_AS(d.run_gradient(), doctest::Contains("terms"), assembly::ProblemError);
  }
}
