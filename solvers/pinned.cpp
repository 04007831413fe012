#include "solvers/pinned.h"

#include <string>

#include "solvers/solver_error.h"

namespace dualjit::solvers {

PinnedDofs::PinnedDofs(int64_t n_nodes, int block_size) : block_(block_size) {
  if (n_nodes < 0 || block_size < 1) {
    throw SolverError("PinnedDofs: " + std::to_string(n_nodes) + " nodes of block size " +
                      std::to_string(block_size));
  }
  mask_.assign(n_nodes * block_size, 0);
}

void PinnedDofs::pin_node(int64_t node) {
  if (node < 0 || (node + 1) * block_ > n_dofs()) {
    throw SolverError("PinnedDofs::pin_node: node " + std::to_string(node) + " of " +
                      std::to_string(n_dofs() / block_) + " is out of range");
  }
  for (int d = 0; d < block_; ++d) pin_dof(node * block_ + d);
}

void PinnedDofs::pin_dof(int64_t dof) {
  if (dof < 0 || dof >= n_dofs()) {
    throw SolverError("PinnedDofs::pin_dof: DOF " + std::to_string(dof) + " of " +
                      std::to_string(n_dofs()) + " is out of range");
  }
  if (!mask_[dof]) ++count_;
  mask_[dof] = 1;
}

void PinnedDofs::check_size(int64_t n, const char* who) const {
  if (!empty() && n != n_dofs()) {
    throw SolverError(std::string(who) + ": pinned DOFs describe " + std::to_string(n_dofs()) +
                      " DOFs, the problem has " + std::to_string(n));
  }
}

void PinnedDofs::zero(std::span<double> v) const {
  if (empty()) return;
  check_size(static_cast<int64_t>(v.size()), "PinnedDofs::zero");
  for (size_t i = 0; i < v.size(); ++i) {
    if (mask_[i]) v[i] = 0;
  }
}

void PinnedDofs::apply_identity(mesh::BlockCsr<double>& m) const {
  if (empty()) return;
  const mesh::BlockPattern& p = *m.pattern;
  if (p.symmetry() != mesh::Symmetry::General || !p.has_diagonal() ||
      m.block_rows != m.block_cols) {
    throw SolverError(
        "PinnedDofs::apply_identity: needs square blocks over a General pattern with diagonal");
  }
  const int b = m.block_rows;
  check_size(p.n_nodes() * b, "PinnedDofs::apply_identity");
  const auto& row_ptr = p.row_ptr();
  const auto& col_idx = p.col_idx();
  for (int64_t r = 0; r < p.n_nodes(); ++r) {
    for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
      const int64_t c = col_idx[k];
      double* blk = m.block(k);
      for (int i = 0; i < b; ++i) {
        const int64_t gi = r * b + i;
        for (int j = 0; j < b; ++j) {
          const int64_t gj = c * b + j;
          if (mask_[gi] || mask_[gj]) blk[i * b + j] = gi == gj ? 1.0 : 0.0;
        }
      }
    }
  }
}

}  // namespace dualjit::solvers
