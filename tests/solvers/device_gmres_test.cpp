// GMRES on the GPU (solvers/device_gmres.h): its module compiles for sm_90 without a GPU and
// without spills; on a GPU it solves the random nonsymmetric block systems of gmres_test.cpp
// with each preconditioner to the tolerance asked, takes the host GMRES's iterations (to
// within one) and solution (to round-off), matches the host multicoloured Gauss-Seidel,
// repeats bit for bit, takes the FUN3D split form as it takes the general one, and names bad
// input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "backends/cuda/driver.h"
#include "block_systems.h"
#include "jit/nvrtc_compiler.h"
#include "solvers/block_jacobi.h"
#include "solvers/bsr_multiply.h"
#include "solvers/device_gmres.h"
#include "solvers/gmres.h"
#include "solvers/multicolor_gauss_seidel.h"
#include "solvers/solver_error.h"
#include "solvers/vector_ops.h"
#include "support/gpu.h"
#include "support/nvrtc_module.h"

using namespace dualjit;
using namespace dualjit::solvers;
using namespace dualjit::test;

namespace {

// A host block-CSR matrix uploaded in the DeviceBsr layout.
struct UploadedBsr {
  cuda::DeviceBuffer row_ptr, col_idx, values;
  assembly::DeviceBsr bsr;

  explicit UploadedBsr(const mesh::BlockCsr<double>& a) {
    const mesh::BlockPattern& p = *a.pattern;
    const std::vector<int32_t> rp(p.row_ptr().begin(), p.row_ptr().end());
    row_ptr = cuda::DeviceBuffer::from(rp);
    col_idx = cuda::DeviceBuffer::from(p.col_idx());
    values = cuda::DeviceBuffer::from(a.values);
    bsr.mb = bsr.nb = static_cast<int>(p.n_nodes());
    bsr.nnzb = static_cast<int>(p.col_idx().size());
    bsr.block_dim = a.block_rows;
    bsr.row_ptr = reinterpret_cast<const int32_t*>(row_ptr.get());
    bsr.col_idx = reinterpret_cast<const int32_t*>(col_idx.get());
    bsr.values = reinterpret_cast<double*>(values.get());
  }
};

double relative_difference(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> d(x);
  axpy(-1, y, d);
  return norm(d) / norm(y);
}

const double* cptr(const cuda::DeviceBuffer& b) {
  return reinterpret_cast<const double*>(b.get());
}
double* ptr(cuda::DeviceBuffer& b) {
  return reinterpret_cast<double*>(b.get());
}

}  // namespace

TEST_CASE("the device GMRES module compiles under NVRTC for sm_90 without a GPU, no spills") {
  for (int B : {4, 5}) {
    CAPTURE(B);
    test::check_module_compiles(
        "gmres", device_gmres_source(B),
        {"dj_gmres_invert", "dj_gmres_jacobi", "dj_gmres_relax", "dj_gmres_spmv", "dj_gmres_dots",
         "dj_gmres_reduce", "dj_gmres_combine", "dj_gmres_axpby"});
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("device GMRES agrees with the host GMRES for each preconditioner" * needs_gpu()) {
    const mesh::BlockPattern p = grid_pattern(40, 25);  // 1,000 nodes
    const mesh::BlockCsr<double> a = random_matrix(p, 0.6, 1.5, 21);
    const std::vector<double> b = random_vector(p.n_nodes() * 5, 22);
    UploadedBsr da(a);
    const auto db = cuda::DeviceBuffer::from(b);
    cuda::DeviceBuffer dx(b.size() * sizeof(double)), dz(b.size() * sizeof(double));
    DeviceGmres gmres_d(p.n_nodes(), 5, 50);
    GmresOptions o;
    o.rtol = 1e-10;
    o.restart = 50;
    o.max_iterations = 2000;
    const BlockJacobi jacobi(a);
    const MulticolorGaussSeidel sgs(a);
    int iterations[3] = {};
    for (auto pc : {DevicePreconditioner::none, DevicePreconditioner::block_jacobi,
                    DevicePreconditioner::multicolor_sgs}) {
      CAPTURE(static_cast<int>(pc));
      LinearOperator host_pc;
      if (pc == DevicePreconditioner::block_jacobi)
        host_pc = [&](std::span<const double> r, std::span<double> z) { jacobi.apply(r, z); };
      if (pc == DevicePreconditioner::multicolor_sgs)
        host_pc = [&](std::span<const double> r, std::span<double> z) { sgs.apply(r, z); };
      std::vector<double> xh(b.size(), 0.0);
      const GmresResult host =
          gmres([&](std::span<const double> x, std::span<double> y) { multiply(a, x, y); }, host_pc,
                b, xh, o);
      gmres_d.set_matrix(da.bsr, pc);
      dx.fill_bytes(0);
      const GmresResult dev = gmres_d.solve(cptr(db), ptr(dx), o);
      const std::vector<double> xd = dx.to_vector<double>();
      MESSAGE("preconditioner " << static_cast<int>(pc) << ": host " << host.iterations
                                << " iterations, device " << dev.iterations);
      CHECK(dev.converged);
      CHECK(std::abs(dev.iterations - host.iterations) <= 1);
      CHECK(dev.residual <= 1e-10 * dev.initial_residual);
      CHECK(dev.initial_residual == doctest::Approx(host.initial_residual).epsilon(1e-13));
      CHECK(relative_difference(xd, xh) < 1e-8);
      std::vector<double> ax(b.size());
      multiply(a, xd, ax);
      axpy(-1, b, ax);
      CHECK(norm(ax) == doctest::Approx(dev.residual).epsilon(1e-6));
      iterations[static_cast<int>(pc)] = dev.iterations;
      if (pc == DevicePreconditioner::multicolor_sgs) {
        CHECK(gmres_d.colors() == sgs.coloring().n_colors);
        // The preconditioner itself against the host's, and a bit-identical repeat.
        gmres_d.precondition(cptr(db), ptr(dz));
        std::vector<double> zh(b.size());
        sgs.apply(b, zh);
        CHECK(relative_difference(dz.to_vector<double>(), zh) < 1e-13);
        dx.fill_bytes(0);
        gmres_d.solve(cptr(db), ptr(dx), o);
        CHECK(dx.to_vector<double>() == xd);
      }
    }
    CHECK(iterations[1] < iterations[0]);
    CHECK(iterations[2] < iterations[1]);
  }

  TEST_CASE("device GMRES on the split form (diagonal blocks apart) equals the general form" *
            needs_gpu()) {
    const mesh::BlockPattern p = grid_pattern(30, 20);
    const mesh::BlockCsr<double> a = random_matrix(p, 0.6, 1.5, 31);
    const std::vector<double> b = random_vector(p.n_nodes() * 5, 32);
    // The split form by hand: diagonal blocks node-major, the rest by rows.
    std::vector<double> diag, off;
    std::vector<int32_t> row_ptr{0}, col_idx;
    for (int64_t i = 0; i < p.n_nodes(); ++i) {
      for (int64_t k = p.row_ptr()[i]; k < p.row_ptr()[i + 1]; ++k) {
        std::vector<double>& to = p.col_idx()[k] == i ? diag : off;
        to.insert(to.end(), a.block(k), a.block(k) + 25);
        if (p.col_idx()[k] != i) col_idx.push_back(p.col_idx()[k]);
      }
      row_ptr.push_back(static_cast<int32_t>(col_idx.size()));
    }
    auto d_diag = cuda::DeviceBuffer::from(diag), d_off = cuda::DeviceBuffer::from(off),
         d_rp = cuda::DeviceBuffer::from(row_ptr), d_ci = cuda::DeviceBuffer::from(col_idx);
    assembly::DeviceSplitJacobian<double> split;
    split.diag = ptr(d_diag);
    split.off = cptr(d_off);
    split.off_row_ptr = reinterpret_cast<const int32_t*>(d_rp.get());
    split.off_col_idx = reinterpret_cast<const int32_t*>(d_ci.get());
    split.n_off_blocks = static_cast<int64_t>(col_idx.size());
    split.block_dim = 5;
    // The same blocks in a shuffled storage order, read through off_storage (edge-based
    // storage: the fused kernels store an element's blocks together).
    const int64_t n_off = static_cast<int64_t>(col_idx.size());
    std::vector<int32_t> storage(n_off);
    std::iota(storage.begin(), storage.end(), 0);
    std::shuffle(storage.begin(), storage.end(), std::mt19937(33));
    std::vector<double> stored(off.size());
    for (int64_t k = 0; k < n_off; ++k)
      std::copy_n(off.begin() + k * 25, 25, stored.begin() + int64_t(storage[k]) * 25);
    auto d_stored = cuda::DeviceBuffer::from(stored), d_storage = cuda::DeviceBuffer::from(storage);
    assembly::DeviceSplitJacobian<double> edges = split;
    edges.off = cptr(d_stored);
    edges.off_storage = reinterpret_cast<const int32_t*>(d_storage.get());
    UploadedBsr general(a);
    const auto db = cuda::DeviceBuffer::from(b);
    cuda::DeviceBuffer dx(b.size() * sizeof(double));
    DeviceGmres g(p.n_nodes(), 5, 30);
    GmresOptions o;
    o.rtol = 1e-10;
    for (auto pc : {DevicePreconditioner::block_jacobi, DevicePreconditioner::multicolor_sgs}) {
      CAPTURE(static_cast<int>(pc));
      g.set_matrix(general.bsr, pc);
      dx.fill_bytes(0);
      const GmresResult rg = g.solve(cptr(db), ptr(dx), o);
      const std::vector<double> xg = dx.to_vector<double>();
      g.set_matrix(split, pc);
      dx.fill_bytes(0);
      const GmresResult rs = g.solve(cptr(db), ptr(dx), o);
      CHECK(rs.converged);
      CHECK(std::abs(rs.iterations - rg.iterations) <= 1);
      const std::vector<double> xs = dx.to_vector<double>();
      CHECK(relative_difference(xs, xg) < 1e-9);
      // Edge-based storage: the same sums in the same order, so the same bits.
      g.set_matrix(edges, pc);
      dx.fill_bytes(0);
      const GmresResult re = g.solve(cptr(db), ptr(dx), o);
      CHECK(re.iterations == rs.iterations);
      CHECK(dx.to_vector<double>() == xs);
    }
  }

  TEST_CASE("device GMRES names a singular diagonal block, bad options and shapes" * needs_gpu()) {
    const mesh::BlockPattern p = grid_pattern(5, 4);
    mesh::BlockCsr<double> a = random_matrix(p, 0.6, 1.0, 5);
    double* d = a.block(p.diag_index(7));
    for (int k = 0; k < 25; ++k) d[k] = 0;
    UploadedBsr da(a);
    DeviceGmres g(p.n_nodes(), 5, 10);
    CHECK_THROWS_WITH_AS(g.set_matrix(da.bsr, DevicePreconditioner::block_jacobi),
                         doctest::Contains("node 7"), SolverError);
    g.set_matrix(da.bsr, DevicePreconditioner::none);
    GmresOptions o;
    o.restart = 11;
    CHECK_THROWS_WITH_AS(g.solve(nullptr, nullptr, o), doctest::Contains("restart 11"),
                         SolverError);
    DeviceGmres other(p.n_nodes() + 1, 5, 10);
    CHECK_THROWS_WITH_AS(other.set_matrix(da.bsr, DevicePreconditioner::none),
                         doctest::Contains("expected a General"), SolverError);
    CHECK_THROWS_AS(DeviceGmres(10, 5, 0), SolverError);
  }
}
