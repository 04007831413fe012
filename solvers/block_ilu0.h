// Block ILU(0) preconditioner: A ~ L U over the block pattern of a block-CSR matrix (no fill),
// the usual preconditioner of implicit CFD's Newton-Krylov steps.
#pragma once

#include <span>
#include <vector>

#include "backends/mesh/block_csr.h"

namespace dualjit::solvers {

class BlockIlu0 {
 public:
  // Square blocks over a General pattern with diagonal. L is unit block-lower, U block-upper,
  // both kept on a's pattern only. Throws SolverError when a block is not finite or a pivot
  // block is singular or not finite, naming the node. The pattern is not owned and must
  // outlive the preconditioner (as it must the matrix).
  explicit BlockIlu0(const mesh::BlockCsr<double>& a);

  // z = (L U)^-1 r: forward, then backward block substitution. r and z may be the same span.
  void apply(std::span<const double> r, std::span<double> z) const;
  int block_size() const { return block_; }

 private:
  const mesh::BlockPattern* pattern_ = nullptr;
  int block_ = 0;
  // On a's pattern: L's blocks below the diagonal, U's above; the diagonal slots are unused,
  // U's diagonal blocks are kept inverted in pivot_inverse_ (one per node).
  std::vector<double> factor_;
  std::vector<double> pivot_inverse_;
};

}  // namespace dualjit::solvers
