#include "solvers/sparse_cholesky.h"

#include <cmath>
#include <sstream>

#include <Eigen/SparseCholesky>

#include "backends/mesh/export.h"
#include "solvers/solver_error.h"

namespace dualjit::solvers {

struct SparseCholesky::Impl {
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt;
  // The block structure the symbolic analysis was made for.
  std::vector<int64_t> row_ptr;
  std::vector<int32_t> col_idx;
  int block = 0;
  bool analysed = false, factorized = false;
};

SparseCholesky::SparseCholesky() : impl_(std::make_unique<Impl>()) {}
SparseCholesky::~SparseCholesky() = default;
SparseCholesky::SparseCholesky(SparseCholesky&&) noexcept = default;
SparseCholesky& SparseCholesky::operator=(SparseCholesky&&) noexcept = default;

int64_t SparseCholesky::size() const {
  return impl_->factorized ? impl_->ldlt.rows() : 0;
}

void SparseCholesky::factorize(const mesh::BlockCsr<double>& a) {
  Impl& m = *impl_;
  m.factorized = false;
  if (a.block_rows != a.block_cols) {
    throw SolverError("SparseCholesky: the blocks are " + std::to_string(a.block_rows) + "x" +
                      std::to_string(a.block_cols) + ", not square");
  }
  const mesh::BlockPattern& p = *a.pattern;
  const Eigen::SparseMatrix<double> s = mesh::to_eigen(a, mesh::Expansion::Full);
  const bool same =
      m.analysed && m.block == a.block_rows && m.row_ptr == p.row_ptr() && m.col_idx == p.col_idx();
  if (!same) {
    m.ldlt.analyzePattern(s);
    m.row_ptr = p.row_ptr();
    m.col_idx = p.col_idx();
    m.block = a.block_rows;
    m.analysed = true;
  }
  m.ldlt.factorize(s);
  if (m.ldlt.info() != Eigen::Success) {
    throw NotPositiveDefiniteError(
        "SparseCholesky: the factorization of the " + std::to_string(s.rows()) + " x " +
            std::to_string(s.cols()) +
            " matrix failed (zero pivot or non-finite entry): it is not positive definite",
        -1);
  }
  // D is in the permuted order P A P^T; Pinv maps its index back to the matrix's DOF.
  const auto& d = m.ldlt.vectorD();
  for (Eigen::Index i = 0; i < d.size(); ++i) {
    if (!(d[i] > 0)) {
      const int64_t dof = m.ldlt.permutationPinv().indices()(i);
      std::ostringstream msg;
      msg << "SparseCholesky: the matrix is not positive definite: pivot " << d[i] << " at DOF "
          << dof << " (node " << dof / a.block_rows << ", component " << dof % a.block_rows
          << ") of " << s.rows();
      throw NotPositiveDefiniteError(msg.str(), dof);
    }
  }
  m.factorized = true;
}

std::vector<double> SparseCholesky::solve(std::span<const double> b) const {
  const Impl& m = *impl_;
  if (!m.factorized) throw SolverError("SparseCholesky::solve: no successful factorization");
  if (static_cast<Eigen::Index>(b.size()) != m.ldlt.rows()) {
    throw SolverError("SparseCholesky::solve: b has " + std::to_string(b.size()) +
                      " values, the matrix " + std::to_string(m.ldlt.rows()) + " rows");
  }
  const Eigen::Map<const Eigen::VectorXd> rhs(b.data(), b.size());
  const Eigen::VectorXd x = m.ldlt.solve(rhs);
  return std::vector<double>(x.data(), x.data() + x.size());
}

}  // namespace dualjit::solvers
