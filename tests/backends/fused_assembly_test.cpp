// Generated in-place assembly (scatter with atomics, gather by column) against the serial
// host assembly; determinism of gather-by-column.
#include <doctest/doctest.h>

#include <omp.h>

#include <random>

#include "backends/assembly/fused_assembly.h"
#include "support/test_kernels.h"

using namespace dualjit;
using assembly::FusedOptions;
using assembly::Problem;
using jit::AssemblyStrategy;

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

}  // namespace

TEST_CASE("host fused assembly equals the serial assembly, both strategies, fp32 and fp64") {
  Problem p = roe_edges(40, 150, 41);
  const auto q = roe_state(40, 42);
  const auto ref_r = p.residual(q);
  const auto ref = p.jacobian_split<double>(q);
  for (auto strategy : {AssemblyStrategy::ScatterAtomic, AssemblyStrategy::GatherByColumn}) {
    CAPTURE(jit::assembly_name(strategy));
    FusedOptions o;
    o.strategy = strategy;
    std::vector<double> r(q.size(), 0.0);
    auto j64 = mesh::SplitBlockCsr<double>::zeros(p.off_pattern(), 5, 5);
    assembly::assemble_on_host(p, q, o, r, j64);
    CHECK(max_rel(r, ref_r) < 1e-12);
    CHECK(max_rel(j64.diag, ref.diag) < 1e-12);
    CHECK(max_rel(j64.off.values, ref.off.values) < 1e-12);
    std::vector<double> r32(q.size(), 0.0);
    auto j32 = mesh::SplitBlockCsr<float>::zeros(p.off_pattern(), 5, 5);
    assembly::assemble_on_host(p, q, o, r32, j32);
    CHECK(max_rel(j32.diag, ref.diag) < 1e-12);
    CHECK(max_rel(as_double(j32.off.values), ref.off.values) < 1e-6);
  }
  // Residual only.
  FusedOptions o;
  o.jacobian = false;
  std::vector<double> r(q.size(), 0.0);
  auto unused = mesh::SplitBlockCsr<float>::zeros(p.off_pattern(), 5, 5);
  assembly::assemble_on_host(p, q, o, r, unused);
  CHECK(max_rel(r, ref_r) < 1e-12);
}

TEST_CASE("gather-by-column is bit-identical across runs and thread counts") {
  Problem p = roe_edges(60, 300, 43);
  const auto q = roe_state(60, 44);
  FusedOptions o;
  o.strategy = AssemblyStrategy::GatherByColumn;
  std::vector<std::vector<double>> runs;
  for (int threads : {1, 2, 1, 2}) {
    omp_set_num_threads(threads);
    std::vector<double> r(q.size(), 0.0);
    auto j = mesh::SplitBlockCsr<double>::zeros(p.off_pattern(), 5, 5);
    assembly::assemble_on_host(p, q, o, r, j);
    r.insert(r.end(), j.diag.begin(), j.diag.end());
    r.insert(r.end(), j.off.values.begin(), j.off.values.end());
    runs.push_back(std::move(r));
  }
  omp_set_num_threads(omp_get_num_procs());
  for (const auto& r : runs) CHECK(r == runs[0]);
}

TEST_SUITE("gpu") {
  TEST_CASE("GPU fused assembly equals the serial assembly; gather-by-column is deterministic") {
    if (!cuda::driver_available()) {
      MESSAGE("skipped: no GPU (" << cuda::driver_unavailable_reason() << ")");
      return;
    }
    Problem p = roe_edges(2000, 12000, 45);
    const auto q = roe_state(2000, 46);
    const auto ref_r = p.residual(q);
    const auto ref = p.jacobian_split<double>(q);
    for (auto strategy : {AssemblyStrategy::ScatterAtomic, AssemblyStrategy::GatherByColumn}) {
      CAPTURE(jit::assembly_name(strategy));
      FusedOptions o;
      o.strategy = strategy;
      assembly::DeviceAssembly<double> d64(p, o);
      d64.set_state(q);
      d64.run();
      const auto j64 = d64.jacobian();
      CHECK(max_rel(d64.residual(), ref_r) < 1e-12);
      CHECK(max_rel(j64.diag, ref.diag) < 1e-12);
      CHECK(max_rel(j64.off.values, ref.off.values) < 1e-12);
      assembly::DeviceAssembly<float> d32(p, o);
      d32.set_state(q);
      d32.run();
      CHECK(max_rel(as_double(d32.jacobian().off.values), ref.off.values) < 1e-6);
      if (strategy == AssemblyStrategy::GatherByColumn) {
        d64.run();
        const auto again = d64.jacobian();
        CHECK(again.diag == j64.diag);
        CHECK(again.off.values == j64.off.values);
      }
    }
  }
}
