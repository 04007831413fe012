// Block-Jacobi preconditioner: the inverse of each diagonal B x B block of a block-CSR matrix.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backends/mesh/block_csr.h"

namespace dualjit::solvers {

class BlockJacobi {
 public:
  // Square blocks over a pattern with diagonal. Throws SolverError naming the node whose
  // diagonal block is singular or not finite.
  explicit BlockJacobi(const mesh::BlockCsr<double>& a);

  // z = D^-1 r, blockwise.
  void apply(std::span<const double> r, std::span<double> z) const;
  int block_size() const { return block_; }
  // Node i's inverse diagonal block, row-major.
  const double* inverse(int64_t node) const { return inverse_.data() + node * block_ * block_; }

 private:
  int block_ = 0;
  std::vector<double> inverse_;  // n_nodes blocks, row-major
};

}  // namespace dualjit::solvers
