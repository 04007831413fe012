#include "solvers/block_jacobi.h"

#include <string>

#include <Eigen/LU>

#include "solvers/solver_error.h"
#include "solvers/vector_ops.h"

namespace dualjit::solvers {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

BlockJacobi::BlockJacobi(const mesh::BlockCsr<double>& a) : block_(a.block_rows) {
  const mesh::BlockPattern& p = *a.pattern;
  if (a.block_rows != a.block_cols || !p.has_diagonal()) {
    throw SolverError("BlockJacobi: needs square blocks over a pattern with diagonal");
  }
  const int b = block_;
  const int64_t n = p.n_nodes();
  inverse_.resize(n * b * b);
  for (int64_t r = 0; r < n; ++r) {
    const Eigen::Map<const RowMatrix> d(a.block(p.diag_index(r)), b, b);
    const std::span<const double> entries(d.data(), b * b);
    Eigen::FullPivLU<RowMatrix> lu(d);
    if (!all_finite(entries) || !lu.isInvertible()) {
      throw SolverError("BlockJacobi: the diagonal block of node " + std::to_string(r) +
                        (all_finite(entries) ? " is singular" : " is not finite"));
    }
    Eigen::Map<RowMatrix>(inverse_.data() + r * b * b, b, b) = lu.inverse();
  }
}

void BlockJacobi::apply(std::span<const double> r, std::span<double> z) const {
  const int b = block_;
  const int64_t n = static_cast<int64_t>(inverse_.size()) / (b * b);
  if (static_cast<int64_t>(r.size()) != n * b || z.size() != r.size()) {
    throw SolverError("BlockJacobi::apply: " + std::to_string(n * b) + " DOFs, r has " +
                      std::to_string(r.size()) + " values and z " + std::to_string(z.size()));
  }
#pragma omp parallel for schedule(static) if (n > 4096)
  for (int64_t node = 0; node < n; ++node) {
    const double* inv = inverse_.data() + node * b * b;
    for (int i = 0; i < b; ++i) {
      double s = 0;
      for (int j = 0; j < b; ++j) s += inv[i * b + j] * r[node * b + j];
      z[node * b + i] = s;
    }
  }
}

}  // namespace dualjit::solvers
