// Sparse LDL^T (Eigen's SimplicialLDLT, fill-reducing AMD ordering) of a symmetric positive
// definite block-CSR matrix on the host, with a check that the matrix is positive definite.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "backends/mesh/block_csr.h"

namespace dualjit::solvers {

class SparseCholesky {
 public:
  SparseCholesky();
  ~SparseCholesky();
  SparseCholesky(SparseCholesky&&) noexcept;
  SparseCholesky& operator=(SparseCholesky&&) noexcept;

  // Factorizes a (square blocks; a General pattern, or an Upper one standing for its symmetric
  // completion). The symbolic analysis is kept and reused while the pattern's structure is the
  // same. Throws NotPositiveDefiniteError naming the DOF of the first pivot that is not positive
  // (or Eigen's failure), after which solve() refuses until a factorization succeeds.
  void factorize(const mesh::BlockCsr<double>& a);
  // x = A^-1 b with the last successful factorization; throws SolverError without one.
  std::vector<double> solve(std::span<const double> b) const;

  int64_t size() const;  // scalar rows of the factorized matrix, 0 before any

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dualjit::solvers
