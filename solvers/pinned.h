// Pinned (Dirichlet) DOFs: whole nodes and/or single DOFs that the solvers keep where the
// starting point has them. Users describe them here; the solvers zero the gradient there, keep
// every search direction zero there, and give linear systems identity rows and columns there,
// so nobody edits an assembled matrix by hand.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backends/mesh/block_csr.h"

namespace dualjit::solvers {

class PinnedDofs {
 public:
  PinnedDofs() = default;  // nothing pinned, any size
  // n_nodes x block_size DOFs, DOF d of node n at n * block_size + d.
  PinnedDofs(int64_t n_nodes, int block_size);

  // Throw SolverError naming the node or DOF when it is out of range. Pinning twice is fine.
  void pin_node(int64_t node);
  void pin_dof(int64_t dof);

  bool empty() const { return count_ == 0; }
  int64_t count() const { return count_; }  // pinned DOFs
  int64_t n_dofs() const { return static_cast<int64_t>(mask_.size()); }
  int block_size() const { return block_; }
  bool is_pinned(int64_t dof) const { return !mask_.empty() && mask_[dof] != 0; }

  // Throws SolverError naming `who` when n differs from n_dofs() (unless nothing is pinned).
  void check_size(int64_t n, const char* who) const;
  // Sets the pinned entries of v to zero (a gradient, a search direction, a right-hand side).
  void zero(std::span<double> v) const;
  // In place on m's values: every entry in a pinned row or column becomes 0, and each pinned
  // diagonal entry 1, so that A x = b with b zero there yields x zero there and the free block
  // stays symmetric. m must be square-blocked over a General pattern of n_dofs() scalars
  // (copy the matrix first to keep the original).
  void apply_identity(mesh::BlockCsr<double>& m) const;

 private:
  std::vector<uint8_t> mask_;
  int block_ = 1;
  int64_t count_ = 0;
};

}  // namespace dualjit::solvers
