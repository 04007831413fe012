#include "solvers/multicolor_gauss_seidel.h"

#include <algorithm>
#include <string>

#include "solvers/solver_error.h"

namespace dualjit::solvers {

MulticolorGaussSeidel::MulticolorGaussSeidel(const mesh::BlockCsr<double>& a, int sweeps)
    : a_(&a),
      sweeps_(sweeps),
      diagonal_(a),
      coloring_(color_nodes(a.pattern->row_ptr(), a.pattern->col_idx())) {
  if (sweeps < 1)
    throw SolverError("MulticolorGaussSeidel: " + std::to_string(sweeps) + " sweeps (at least 1)");
  if (diagonal_.block_size() > 8) {
    throw SolverError("MulticolorGaussSeidel: blocks of " + std::to_string(diagonal_.block_size()) +
                      " (at most 8)");
  }
}

// z_i = D_i^-1 (r_i - sum over j != i of A_ij z_j) for the nodes of one colour; none of them
// reads another's z.
void MulticolorGaussSeidel::relax(int color, std::span<const double> r, std::span<double> z) const {
  const mesh::BlockPattern& p = *a_->pattern;
  const int b = diagonal_.block_size();
  const int64_t first = coloring_.color_ptr[color], last = coloring_.color_ptr[color + 1];
#pragma omp parallel for schedule(static) if (last - first > 4096)
  for (int64_t k = first; k < last; ++k) {
    const int64_t i = coloring_.nodes[k];
    double s[8];
    for (int c = 0; c < b; ++c) s[c] = r[i * b + c];
    for (int64_t slot = p.row_ptr()[i]; slot < p.row_ptr()[i + 1]; ++slot) {
      const int64_t j = p.col_idx()[slot];
      if (j == i) continue;
      const double* v = a_->block(slot);
      for (int row = 0; row < b; ++row)
        for (int col = 0; col < b; ++col) s[row] -= v[row * b + col] * z[j * b + col];
    }
    const double* inv = diagonal_.inverse(i);
    for (int row = 0; row < b; ++row) {
      double t = 0;
      for (int col = 0; col < b; ++col) t += inv[row * b + col] * s[col];
      z[i * b + row] = t;
    }
  }
}

void MulticolorGaussSeidel::apply(std::span<const double> r, std::span<double> z) const {
  const int64_t n = a_->pattern->n_nodes() * diagonal_.block_size();
  if (static_cast<int64_t>(r.size()) != n || z.size() != r.size()) {
    throw SolverError("MulticolorGaussSeidel::apply: " + std::to_string(n) + " DOFs, r has " +
                      std::to_string(r.size()) + " values and z " + std::to_string(z.size()));
  }
  std::fill(z.begin(), z.end(), 0.0);
  for (int s = 0; s < sweeps_; ++s) {
    for (int c = 0; c < coloring_.n_colors; ++c) relax(c, r, z);
    for (int c = coloring_.n_colors - 1; c >= 0; --c) relax(c, r, z);
  }
}

}  // namespace dualjit::solvers
