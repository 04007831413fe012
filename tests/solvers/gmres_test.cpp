// GMRES(m) and block ILU(0) on random nonsymmetric 5x5-block matrices (the shape of an implicit
// Euler solver's Jacobian): GMRES solves to tolerance and agrees with a sparse LU; block Jacobi
// and ILU(0) cut its iterations, ILU(0) most; on a block-tridiagonal chain ILU(0) is the exact
// LU; restarts and iteration limits report the true residual; breakdowns, bad pivots, sizes and
// non-finite values are handled or named.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <Eigen/SparseLU>

#include "backends/mesh/export.h"
#include "block_systems.h"
#include "solvers/block_ilu0.h"
#include "solvers/block_jacobi.h"
#include "solvers/bsr_multiply.h"
#include "solvers/gmres.h"
#include "solvers/multicolor_gauss_seidel.h"
#include "solvers/solver_error.h"
#include "solvers/vector_ops.h"

using namespace dualjit;
using namespace dualjit::solvers;
using namespace dualjit::test;

namespace {

LinearOperator op(const mesh::BlockCsr<double>& a) {
  return [&a](std::span<const double> x, std::span<double> y) { multiply(a, x, y); };
}

template <class P>
LinearOperator precond(const P& m) {
  return [&m](std::span<const double> r, std::span<double> z) { m.apply(r, z); };
}

double true_residual(const mesh::BlockCsr<double>& a, const std::vector<double>& x,
                     const std::vector<double>& b) {
  std::vector<double> ax(b.size());
  multiply(a, x, ax);
  for (size_t i = 0; i < b.size(); ++i) ax[i] -= b[i];
  return norm(ax);
}

std::vector<double> sparse_lu_solve(const mesh::BlockCsr<double>& a, const std::vector<double>& b) {
  const Eigen::SparseMatrix<double> s = mesh::to_eigen(a);
  Eigen::SparseLU<Eigen::SparseMatrix<double>> lu(s);
  REQUIRE(lu.info() == Eigen::Success);
  const Eigen::VectorXd x = lu.solve(Eigen::Map<const Eigen::VectorXd>(b.data(), b.size()));
  return {x.data(), x.data() + x.size()};
}

double relative_difference(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> d(x);
  axpy(-1, y, d);
  return norm(d) / norm(y);
}

}  // namespace

TEST_CASE("GMRES solves a nonsymmetric 5x5-block grid system to 1e-10 and agrees with sparse LU") {
  const mesh::BlockPattern p = grid_pattern(20, 10);  // 200 nodes
  const mesh::BlockCsr<double> a = random_matrix(p, 0.6, 1.0, 11);
  const std::vector<double> b = random_vector(200 * kB, 12);
  std::vector<double> x(b.size(), 0.0);
  GmresOptions o;
  o.rtol = 1e-10;
  const GmresResult res = gmres(op(a), {}, b, x, o);
  MESSAGE("unpreconditioned GMRES(30): " << res.iterations << " iterations");
  CHECK(res.converged);
  CHECK(res.iterations > 5);
  CHECK(res.history.size() == static_cast<size_t>(res.iterations));
  CHECK(res.initial_residual == doctest::Approx(norm(b)).epsilon(1e-14));
  const double r = true_residual(a, x, b);
  CHECK(res.residual == doctest::Approx(r).epsilon(1e-12));
  CHECK(r / norm(b) <= 1e-9);
  CHECK(relative_difference(x, sparse_lu_solve(a, b)) < 1e-8);
  // The estimate is non-increasing inside the first cycle (GMRES minimises over a growing space).
  for (size_t i = 1; i < std::min<size_t>(res.history.size(), 30); ++i) {
    CHECK(res.history[i] <= res.history[i - 1] * (1 + 1e-12));
  }
}

TEST_CASE(
    "GMRES preconditioned by block Jacobi, multicoloured Gauss-Seidel and block ILU(0): each "
    "stronger cuts the iterations") {
  const mesh::BlockPattern p = grid_pattern(20, 10);
  const mesh::BlockCsr<double> a = random_matrix(p, 0.6, 3.0, 21);
  const std::vector<double> b = random_vector(200 * kB, 22);
  const std::vector<double> reference = sparse_lu_solve(a, b);
  const BlockJacobi jacobi(a);
  const MulticolorGaussSeidel sgs(a);
  const BlockIlu0 ilu(a);
  CHECK(ilu.block_size() == kB);
  GmresOptions o;
  o.rtol = 1e-10;
  o.restart = 50;  // so that plain GMRES, hundreds of iterations, does not stagnate
  int iterations[4] = {};
  const LinearOperator preconditioners[4] = {{}, precond(jacobi), precond(sgs), precond(ilu)};
  for (int k = 0; k < 4; ++k) {
    CAPTURE(k);
    std::vector<double> x(b.size(), 0.0);
    const GmresResult res = gmres(op(a), preconditioners[k], b, x, o);
    CHECK(res.converged);
    // Right preconditioning: the tolerance is on the original system's residual.
    CHECK(true_residual(a, x, b) / norm(b) <= 1e-9);
    CHECK(relative_difference(x, reference) < 1e-7);
    iterations[k] = res.iterations;
  }
  MESSAGE("iterations: none " << iterations[0] << ", block Jacobi " << iterations[1]
                              << ", multicoloured SGS " << iterations[2] << ", block ILU(0) "
                              << iterations[3]);
  CHECK(iterations[1] < iterations[0]);
  CHECK(iterations[2] < iterations[1]);
  CHECK(iterations[3] < iterations[1]);
}

TEST_CASE("block ILU(0) on a block-tridiagonal chain is the exact LU: GMRES in 1 or 2 iterations") {
  const mesh::BlockPattern p = chain_pattern(200);
  // 5 and 4 take the fixed-size Eigen path, 3 the dynamic one.
  for (const int block : {kB, 4, 3}) {
    CAPTURE(block);
    const mesh::BlockCsr<double> a = random_matrix(p, 0.5, 10.0, 31 + block, block);
    const BlockIlu0 ilu(a);
    CHECK(ilu.block_size() == block);
    const std::vector<double> x = random_vector(200 * block, 32);
    std::vector<double> ax(x.size()), z(x.size());
    multiply(a, x, ax);
    ilu.apply(ax, z);
    double max_error = 0;
    for (size_t i = 0; i < x.size(); ++i) max_error = std::max(max_error, std::abs(z[i] - x[i]));
    CHECK(max_error <= 1e-12);
    // In place (r and z the same span) gives the same.
    ilu.apply(ax, ax);
    CHECK(ax == z);

    const std::vector<double> b = random_vector(200 * block, 33);
    std::vector<double> y(b.size(), 0.0);
    GmresOptions o;
    o.rtol = 1e-10;
    const GmresResult res = gmres(op(a), precond(ilu), b, y, o);
    CHECK(res.converged);
    CHECK(res.iterations >= 1);
    CHECK(res.iterations <= 2);
    CHECK(true_residual(a, y, b) / norm(b) <= 1e-10);
    CHECK(relative_difference(y, sparse_lu_solve(a, b)) < 1e-10);
  }
}

TEST_CASE("GMRES restarts: restart 5 converges in more iterations than 50; a short limit reports") {
  const mesh::BlockPattern p = grid_pattern(20, 10);
  const mesh::BlockCsr<double> a = random_matrix(p, 0.6, 1.0, 41);
  const std::vector<double> b = random_vector(200 * kB, 42);
  const BlockJacobi jacobi(a);
  GmresOptions o;
  o.rtol = 1e-10;
  o.restart = 50;
  std::vector<double> x50(b.size(), 0.0);
  // Unpreconditioned: block Jacobi converges at one rate per iteration whatever the restart.
  const GmresResult r50 = gmres(op(a), {}, b, x50, o);
  o.restart = 5;
  std::vector<double> x5(b.size(), 0.0);
  const GmresResult r5 = gmres(op(a), {}, b, x5, o);
  MESSAGE("GMRES(50) " << r50.iterations << " iterations, GMRES(5) " << r5.iterations);
  CHECK(r50.converged);
  CHECK(r5.converged);
  CHECK(r5.iterations > r50.iterations * 3 / 2);
  CHECK(true_residual(a, x5, b) / norm(b) <= 1e-9);
  CHECK(relative_difference(x5, x50) < 1e-8);

  // Stopped short, mid-cycle: not converged, the residual is the true one of the x returned.
  o.restart = 30;
  o.max_iterations = 7;
  std::vector<double> x(b.size(), 0.0);
  const GmresResult short_res = gmres(op(a), precond(jacobi), b, x, o);
  CHECK_FALSE(short_res.converged);
  CHECK(short_res.iterations == 7);
  CHECK(short_res.history.size() == 7);
  const double r = true_residual(a, x, b);
  CHECK(short_res.residual == doctest::Approx(r).epsilon(1e-12));
  CHECK(r < short_res.initial_residual);
  CHECK(r > 1e-10 * short_res.initial_residual);
  CHECK(short_res.residual == doctest::Approx(short_res.history.back()).epsilon(1e-6));

  // max_iterations 0: x untouched, the initial residual reported.
  o.max_iterations = 0;
  std::vector<double> x0 = random_vector(b.size(), 43);
  const std::vector<double> x0_copy = x0;
  const GmresResult none = gmres(op(a), {}, b, x0, o);
  CHECK_FALSE(none.converged);
  CHECK(none.iterations == 0);
  CHECK(x0 == x0_copy);
  CHECK(none.residual == none.initial_residual);
  CHECK(none.residual == doctest::Approx(true_residual(a, x0, b)).epsilon(1e-14));
}

TEST_CASE("GMRES: a solved x returns at once; happy breakdown and a singular operator are safe") {
  const mesh::BlockPattern p = grid_pattern(8, 5);
  const mesh::BlockCsr<double> a = random_matrix(p, 0.6, 5.0, 51);
  const std::vector<double> x_true = random_vector(40 * kB, 52);
  std::vector<double> b(x_true.size());
  multiply(a, x_true, b);
  std::vector<double> x = x_true;
  GmresResult res = gmres(op(a), {}, b, x, {});
  CHECK(res.converged);
  CHECK(res.iterations == 0);
  CHECK(res.initial_residual == 0);
  CHECK(res.residual == 0);
  CHECK(x == x_true);

  // A diagonal operator with three distinct values: the Krylov space is exhausted after three
  // vectors, well inside one cycle of 30.
  const size_t n = 60;
  const double values[3] = {2.5, -1.3, 0.7};
  std::vector<double> diag(n);
  for (size_t i = 0; i < n; ++i) diag[i] = values[(i * 7) % 3];
  const LinearOperator d = [&](std::span<const double> v, std::span<double> w) {
    for (size_t i = 0; i < n; ++i) w[i] = diag[i] * v[i];
  };
  const std::vector<double> f = random_vector(n, 53);
  std::vector<double> y(n, 0.0);
  GmresOptions o;
  o.rtol = 1e-13;
  res = gmres(d, {}, f, y, o);
  CHECK(res.converged);
  CHECK(res.iterations == 3);
  for (size_t i = 0; i < n; ++i) CHECK(y[i] == doctest::Approx(f[i] / diag[i]).epsilon(1e-12));
  // No tolerance at all: every cycle ends in breakdown at rounding level; nothing divides by it.
  o.rtol = 0;
  o.max_iterations = 40;
  std::fill(y.begin(), y.end(), 0.0);
  res = gmres(d, {}, f, y, o);
  CHECK(all_finite(y));
  CHECK(res.iterations <= 40);
  CHECK(res.residual <= 1e-13 * norm(f));

  // The zero operator: A v = 0 spans nothing, GMRES stops after one product, x unchanged.
  const LinearOperator zero = [](std::span<const double>, std::span<double> w) {
    std::fill(w.begin(), w.end(), 0.0);
  };
  std::fill(y.begin(), y.end(), 0.0);
  res = gmres(zero, {}, f, y, {});
  CHECK_FALSE(res.converged);
  CHECK(res.iterations == 1);
  CHECK(res.residual == doctest::Approx(norm(f)).epsilon(1e-14));
  CHECK(std::all_of(y.begin(), y.end(), [](double v) { return v == 0; }));
}

TEST_CASE("block ILU(0) names the node of a singular or non-finite pivot; GMRES names bad input") {
  const mesh::BlockPattern p = chain_pattern(20);
  mesh::BlockCsr<double> a = random_matrix(p, 0.5, 3.0, 61);
  // Node 7 decoupled from node 6 below the diagonal: its pivot is its own diagonal block, made
  // singular by repeating a row.
  mesh::BlockCsr<double> singular = a;
  for (double& v : std::span(singular.block(p.find(7, 6)), kB * kB)) v = 0;
  double* d7 = singular.block(p.diag_index(7));
  for (int j = 0; j < kB; ++j) d7[3 * kB + j] = d7[1 * kB + j];
  CHECK_THROWS_WITH_AS(BlockIlu0{singular}, doctest::Contains("pivot block of node 7 is singular"),
                       SolverError);
  // Finite blocks whose elimination overflows: L(9,8) U(8,9) makes node 9's pivot non-finite.
  mesh::BlockCsr<double> huge = a;
  for (double& v : std::span(huge.block(p.find(9, 8)), kB * kB)) v *= 1e300;
  for (double& v : std::span(huge.block(p.find(8, 9)), kB * kB)) v *= 1e300;
  CHECK_THROWS_WITH_AS(BlockIlu0{huge}, doctest::Contains("pivot block of node 9 is not finite"),
                       SolverError);
  mesh::BlockCsr<double> nan = a;
  nan.block(p.find(12, 13))[4] = std::nan("");
  CHECK_THROWS_WITH_AS(BlockIlu0{nan}, doctest::Contains("block (12, 13) of node 12 is not finite"),
                       SolverError);

  const BlockIlu0 ilu(a);
  std::vector<double> r(20 * kB, 1.0), z(20 * kB - 1);
  CHECK_THROWS_WITH_AS(ilu.apply(r, z), doctest::Contains("100 DOFs"), SolverError);
  std::vector<double> x(20 * kB - 1, 0.0);
  CHECK_THROWS_WITH_AS(gmres(op(a), {}, r, x, {}), doctest::Contains("b has 100 values, x 99"),
                       SolverError);
  x.resize(20 * kB);
  GmresOptions bad;
  bad.restart = 0;
  CHECK_THROWS_WITH_AS(gmres(op(a), {}, r, x, bad), doctest::Contains("invalid options"),
                       SolverError);
  bad = {};
  bad.rtol = -1;
  CHECK_THROWS_AS(gmres(op(a), {}, r, x, bad), SolverError);
  CHECK_THROWS_WITH_AS(gmres({}, {}, r, x, {}), doctest::Contains("no operator"), SolverError);

  // An operator that turns non-finite at its 4th product (the 3rd Arnoldi iteration).
  int calls = 0;
  const LinearOperator faulty = [&](std::span<const double> v, std::span<double> w) {
    multiply(a, v, w);
    if (++calls == 4) w[17] = std::numeric_limits<double>::infinity();
  };
  CHECK_THROWS_WITH_AS(gmres(faulty, {}, r, x, {}), doctest::Contains("at iteration 3"),
                       SolverError);
  // A non-finite b: named at iteration 0.
  r[5] = std::nan("");
  std::fill(x.begin(), x.end(), 0.0);
  CHECK_THROWS_WITH_AS(gmres(op(a), {}, r, x, {}), doctest::Contains("iteration 0"), SolverError);
}
