#include "solvers/bsr_multiply.h"

#include <string>

#include "solvers/solver_error.h"

namespace dualjit::solvers {

void multiply(const mesh::BlockCsr<double>& a, std::span<const double> x, std::span<double> y) {
  const mesh::BlockPattern& p = *a.pattern;
  if (p.symmetry() != mesh::Symmetry::General) {
    throw SolverError("multiply: the matrix has an Upper pattern; assemble it General");
  }
  const int br = a.block_rows, bc = a.block_cols;
  const int64_t n = p.n_nodes();
  if (static_cast<int64_t>(x.size()) != n * bc || static_cast<int64_t>(y.size()) != n * br) {
    throw SolverError("multiply: " + std::to_string(n) + " block rows of " + std::to_string(br) +
                      "x" + std::to_string(bc) + ", x has " + std::to_string(x.size()) +
                      " values and y " + std::to_string(y.size()));
  }
  const auto& row_ptr = p.row_ptr();
  const auto& col_idx = p.col_idx();
#pragma omp parallel for schedule(static) if (n > 2048)
  for (int64_t r = 0; r < n; ++r) {
    double* yr = y.data() + r * br;
    for (int i = 0; i < br; ++i) yr[i] = 0;
    for (int64_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
      const double* blk = a.block(k);
      const double* xc = x.data() + static_cast<int64_t>(col_idx[k]) * bc;
      for (int i = 0; i < br; ++i) {
        double s = 0;
        for (int j = 0; j < bc; ++j) s += blk[i * bc + j] * xc[j];
        yr[i] += s;
      }
    }
  }
}

}  // namespace dualjit::solvers
