// Sparse Cholesky and block-Jacobi PCG on cloth Hessians (CPU backend): a stretched cloth's
// Hessian is positive definite (springs in tension plus the inertia term); both solve it to
// tolerance and agree; block Jacobi undoes a badly scaled system that plain CG struggles with;
// pinned identity rows give zero there and the original equations elsewhere; a compressed
// cloth's indefinite Hessian makes Cholesky throw naming a DOF.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include <Eigen/Eigenvalues>

#include "backends/mesh/export.h"
#include "solvers/block_jacobi.h"
#include "solvers/block_pcg.h"
#include "solvers/bsr_multiply.h"
#include "solvers/solver_error.h"
#include "solvers/solver_problems.h"
#include "solvers/sparse_cholesky.h"
#include "solvers/vector_ops.h"

using namespace dualjit;
using namespace dualjit::solvers;

namespace {

std::vector<double> random_vector(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

double relative_residual(const mesh::BlockCsr<double>& a, const std::vector<double>& x,
                         const std::vector<double>& b) {
  std::vector<double> ax(b.size());
  multiply(a, x, ax);
  for (size_t i = 0; i < b.size(); ++i) ax[i] -= b[i];
  return norm(ax) / norm(b);
}

}  // namespace

TEST_CASE("sparse Cholesky and block PCG solve a stretched cloth's Hessian and agree") {
  test::SolverProblem s = test::cloth(8, 0.0, 11);
  const mesh::BlockCsr<double> h =
      s.assembler->hessian(test::scaled_cloth(s, 1.1), mesh::Symmetry::General);
  const std::vector<double> b = random_vector(h.pattern->n_nodes() * 3, 12);
  // multiply() against Eigen's product of the exported matrix.
  {
    std::vector<double> y(b.size());
    multiply(h, b, y);
    const Eigen::VectorXd ye =
        mesh::to_eigen(h) * Eigen::Map<const Eigen::VectorXd>(b.data(), b.size());
    for (size_t i = 0; i < y.size(); ++i) CHECK(y[i] == doctest::Approx(ye[i]).epsilon(1e-13));
  }
  SparseCholesky chol;
  chol.factorize(h);
  CHECK(chol.size() == int64_t(b.size()));
  const std::vector<double> xc = chol.solve(b);
  CHECK(relative_residual(h, xc, b) < 1e-12);

  std::vector<double> xp(b.size(), 0.0);
  const PcgResult r = block_pcg(h, b, xp, {.relative_tolerance = 1e-10, .max_iterations = 1000});
  CHECK(r.converged);
  CHECK(!r.negative_curvature);
  CHECK(r.iterations > 5);
  CHECK(r.iterations < int(b.size()));
  CHECK(r.relative_residual < 1e-9);
  CHECK(r.relative_residual == doctest::Approx(relative_residual(h, xp, b)).epsilon(1e-6));
  for (size_t i = 0; i < b.size(); ++i) CHECK(xp[i] == doctest::Approx(xc[i]).epsilon(1e-7));

  // A second factorization over the same pattern (the symbolic analysis reused) with other
  // values.
  const mesh::BlockCsr<double> h2 =
      s.assembler->hessian(test::scaled_cloth(s, 1.3), mesh::Symmetry::General);
  chol.factorize(h2);
  CHECK(relative_residual(h2, chol.solve(b), b) < 1e-12);
  CHECK(relative_residual(h, chol.solve(b), b) > 1e-6);

  // Too few iterations: a result, not an error.
  std::vector<double> x3(b.size(), 0.0);
  const PcgResult capped = block_pcg(h, b, x3, {.relative_tolerance = 1e-12, .max_iterations = 3});
  CHECK(!capped.converged);
  CHECK(capped.iterations == 3);
  CHECK(capped.relative_residual > 1e-12);
}

TEST_CASE("block Jacobi makes PCG immune to a node-wise scaling that slows plain CG") {
  test::SolverProblem s = test::cloth(8, 0.0, 13);
  mesh::BlockCsr<double> h =
      s.assembler->hessian(test::scaled_cloth(s, 1.1), mesh::Symmetry::General);
  // D H D with D = d_n per node, d spanning two decades.
  const std::vector<double> d0 = random_vector(h.pattern->n_nodes(), 14);
  std::vector<double> d(d0.size());
  for (size_t n = 0; n < d.size(); ++n) d[n] = std::pow(10.0, d0[n]);
  const auto& row_ptr = h.pattern->row_ptr();
  const auto& col_idx = h.pattern->col_idx();
  for (int64_t r = 0; r < h.pattern->n_nodes(); ++r) {
    for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
      for (int e = 0; e < 9; ++e) h.block(k)[e] *= d[r] * d[col_idx[k]];
    }
  }
  const std::vector<double> b = random_vector(h.pattern->n_nodes() * 3, 15);
  std::vector<double> xj(b.size(), 0.0), xn(b.size(), 0.0);
  const PcgResult jac = block_pcg(h, b, xj, {.relative_tolerance = 1e-8, .max_iterations = 5000});
  const PcgResult plain = block_pcg(
      h, b, xn, {.relative_tolerance = 1e-8, .max_iterations = 5000, .block_jacobi = false});
  CHECK(jac.converged);
  CHECK(plain.converged);
  CHECK(3 * jac.iterations < plain.iterations);
  // Each application inverts the diagonal blocks exactly.
  const BlockJacobi pre(h);
  std::vector<double> z(b.size()), back(b.size());
  pre.apply(b, z);
  for (int64_t n = 0; n < h.pattern->n_nodes(); ++n) {
    const double* blk = h.block(h.pattern->diag_index(n));
    for (int i = 0; i < 3; ++i) {
      double s2 = 0;
      for (int j = 0; j < 3; ++j) s2 += blk[i * 3 + j] * z[n * 3 + j];
      CHECK(s2 == doctest::Approx(b[n * 3 + i]).epsilon(1e-10));
    }
  }
}

TEST_CASE("pinned identity rows: zero at pinned DOFs, the original equations elsewhere") {
  test::SolverProblem s = test::cloth(6, 0.0, 16);
  const mesh::BlockCsr<double> h =
      s.assembler->hessian(test::scaled_cloth(s, 1.1), mesh::Symmetry::General);
  PinnedDofs pinned = s.pinned;  // the four corners
  pinned.pin_dof(7 * 3 + 1);     // and the y of vertex 7
  CHECK(pinned.count() == 13);
  mesh::BlockCsr<double> a = h;
  pinned.apply_identity(a);
  // Symmetric, with unit rows and columns at the pinned DOFs.
  const Eigen::SparseMatrix<double> ea = mesh::to_eigen(a);
  const Eigen::SparseMatrix<double> diff = ea - Eigen::SparseMatrix<double>(ea.transpose());
  CHECK(diff.norm() == 0);
  const Eigen::MatrixXd dense(ea);
  for (int64_t i = 0; i < dense.rows(); ++i) {
    if (!pinned.is_pinned(i)) continue;
    CHECK(dense.row(i).cwiseAbs().sum() == 1);
    CHECK(dense(i, i) == 1);
  }
  std::vector<double> b = random_vector(h.pattern->n_nodes() * 3, 17);
  pinned.zero(b);
  std::vector<double> x(b.size(), 0.0);
  const PcgResult r = block_pcg(a, b, x, {.relative_tolerance = 1e-11});
  CHECK(r.converged);
  SparseCholesky chol;
  chol.factorize(a);
  const std::vector<double> xc = chol.solve(b);
  std::vector<double> hx(b.size());
  multiply(h, x, hx);  // the unmodified Hessian
  for (size_t i = 0; i < b.size(); ++i) {
    if (pinned.is_pinned(int64_t(i))) {
      CHECK(x[i] == 0);
      CHECK(std::abs(xc[i]) < 1e-15);
    } else {
      CHECK(std::abs(hx[i] - b[i]) < 1e-9 * norm(b));
      CHECK(x[i] == doctest::Approx(xc[i]).epsilon(1e-8));
    }
  }
}

TEST_CASE("an indefinite Hessian: Cholesky throws naming the DOF; singular Jacobi blocks named") {
  test::SolverProblem s = test::cloth(6, 0.0, 18);
  // Every spring compressed to 70%: negative curvature across the springs.
  mesh::BlockCsr<double> h =
      s.assembler->hessian(test::scaled_cloth(s, 0.7), mesh::Symmetry::General);
  SparseCholesky chol;
  try {
    chol.factorize(h);
    FAIL("the factorization of an indefinite matrix succeeded");
  } catch (const NotPositiveDefiniteError& e) {
    CHECK(std::string(e.what()).find("SparseCholesky: the matrix is not positive definite") !=
          std::string::npos);
    CHECK(std::string(e.what()).find("at DOF " + std::to_string(e.dof())) != std::string::npos);
    CHECK(e.dof() >= 0);
    CHECK(e.dof() < 108);
  }
  CHECK_THROWS_WITH_AS(chol.solve(std::vector<double>(108, 1.0)),
                       doctest::Contains("no successful factorization"), SolverError);
  // The same matrix shifted by more than its most negative eigenvalue factorizes.
  const Eigen::MatrixXd dense(mesh::to_eigen(h));
  const double lmin = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(dense).eigenvalues()[0];
  REQUIRE(lmin < 0);
  for (int64_t n = 0; n < 36; ++n) {
    for (int i = 0; i < 3; ++i) h.block(h.pattern->diag_index(n))[i * 4] += 1.01 * -lmin;
  }
  chol.factorize(h);
  CHECK(chol.size() == 108);

  for (double& v : std::span(h.block(h.pattern->diag_index(3)), 9)) v = 0;
  CHECK_THROWS_WITH_AS(BlockJacobi{h}, doctest::Contains("diagonal block of node 3 is singular"),
                       SolverError);
}
