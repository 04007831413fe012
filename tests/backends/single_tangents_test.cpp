// Single tangents (FusedOptions::single_tangents, jit/emit_element.h): the derivative
// arithmetic in fp32, the primal in fp64. The residual must stay fp64-exact, the Jacobian
// fp32-accurate per block, and the arithmetic must really be fp32 (else the option is a no-op).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "backends/assembly/fused_assembly.h"
#include "backends/cuda/driver.h"
#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_problem.h"
#include "jit/cuda_image.h"
#include "support/assembly.h"
#include "support/gpu.h"

using namespace dualjit;
using assembly::FusedOptions;
using assembly::Problem;

namespace {

// Largest error of a 5x5 block relative to the largest entry of the reference block: an
// entry-wise relative error would be dominated by entries that cancel to nearly zero.
template <class T>
double max_block_rel(const std::vector<T>& a, const std::vector<double>& ref) {
  REQUIRE(a.size() == ref.size());
  double worst = 0;
  for (size_t b = 0; b + 25 <= ref.size(); b += 25) {
    double scale = 0, err = 0;
    for (size_t i = b; i < b + 25; ++i) {
      scale = std::max(scale, std::abs(ref[i]));
      err = std::max(err, std::abs(static_cast<double>(a[i]) - ref[i]));
    }
    if (scale > 0) worst = std::max(worst, err / scale);
  }
  return worst;
}

double max_abs_rel(const std::vector<double>& a, const std::vector<double>& b) {
  double scale = 1, w = 0;
  for (double x : b) scale = std::max(scale, std::abs(x));
  for (size_t i = 0; i < a.size(); ++i) w = std::max(w, std::abs(a[i] - b[i]) / scale);
  return w;
}

struct Case {
  Problem p;
  std::vector<double> q, ref_r;
  mesh::SplitBlockCsr<double> ref;
};

Case roe_case() {
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(5, 4, 4));
  Problem p = cfd::roe_problem(em);  // interior edges and the far-field boundary term
  auto q = cfd::perturbed_state(p.n_nodes(), {}, 0.2, 61);
  auto ref_r = test::serial(p).residual(q);
  auto ref = test::serial(p).jacobian_split<double>(q);
  return {std::move(p), std::move(q), std::move(ref_r), std::move(ref)};
}

}  // namespace

TEST_CASE("single tangents on the host: fp64 residual, fp32-accurate Jacobian, fp32 arithmetic") {
  Case c = roe_case();
  for (int w : {5, 10}) {
    CAPTURE(w);
    FusedOptions o;
    o.width = w;
    o.single_tangents = true;
    const assembly::HostFusedAssembly<double> host(c.p, o);
    CHECK(host.kernels()[0]->lowered().cuda_source.find("const float") != std::string::npos);
    std::vector<double> r(c.q.size(), 0.0);
    auto j = mesh::SplitBlockCsr<double>::zeros(c.p.off_pattern(), 5, 5);
    host.run(c.q, r, j);
    CHECK(max_abs_rel(r, c.ref_r) < 1e-13);  // the primal is untouched
    const double e_diag = max_block_rel(j.diag, c.ref.diag);
    const double e_off = max_block_rel(j.off.values, c.ref.off.values);
    MESSAGE("W" << w << " single tangents: Adiag " << e_diag << ", Aoff " << e_off
                << " (largest error over a block's largest entry)");
    CHECK(e_diag < 2e-5);
    CHECK(e_off < 2e-5);
    CHECK(e_diag > 1e-12);  // fp64 arithmetic would be exact to ~1e-15: the option took effect
    FusedOptions d = o;
    d.single_tangents = false;
    const assembly::HostFusedAssembly<double> exact(c.p, d);
    auto j64 = mesh::SplitBlockCsr<double>::zeros(c.p.off_pattern(), 5, 5);
    std::fill(r.begin(), r.end(), 0.0);
    exact.run(c.q, r, j64);
    CHECK(max_block_rel(j64.diag, c.ref.diag) < 1e-12);
  }
}

TEST_CASE("single tangents lower the register demand of the Roe Jacobian (sm_90, ptxas)") {
  // Under a register cap of 168 (64 threads, 6 blocks per SM), fp64 tangents spill hundreds
  // of bytes; fp32 tangents and partials need far less.
  jit::KernelCache cache(std::nullopt);
  Case c = roe_case();
  int spill[2] = {0, 0};
  for (bool single : {false, true}) {
    FusedOptions o;
    o.width = 10;
    o.layout = {1, 64, 6};
    o.single_tangents = single;
    const auto lk = assembly::fused_kernels(c.p, o, true, /*gpu=*/true)[0].lowered;
    CHECK((lk.symbol.find("_st") != std::string::npos) == single);
    jit::CompileOptions co;
    co.arch = "sm_90";
    const auto img = jit::cuda_image(lk, co, cache);
    REQUIRE(img.ptxas.registers > 0);
    spill[single] = img.ptxas.spill_store_bytes;
    MESSAGE(lk.symbol << ": " << img.ptxas.registers << " registers, " << spill[single]
                      << " B spilled");
  }
  CHECK(spill[1] * 4 < spill[0]);
}

TEST_SUITE("gpu") {
  TEST_CASE("GPU single tangents: fp64 residual, fp32-accurate Adiag and Aoff" *
            test::needs_gpu()) {
    Case c = roe_case();
    for (jit::LaunchLayout layout : {jit::LaunchLayout{1, 64}, jit::LaunchLayout{1, 64, 6}}) {
      FusedOptions o;
      o.width = 10;
      o.layout = layout;
      o.single_tangents = true;
      test::GpuSplit<float> d(c.p, o);
      d.set_state(c.q);
      d.run();
      CAPTURE(d.kernels()[0].symbol);
      const auto j = d.jacobian();
      CHECK(max_abs_rel(d.residual(), c.ref_r) < 1e-12);
      CHECK(max_block_rel(j.diag, c.ref.diag) < 2e-5);
      CHECK(max_block_rel(j.off.values, c.ref.off.values) < 2e-5);
      CHECK(max_block_rel(j.diag, c.ref.diag) > 1e-12);
    }
  }
}
