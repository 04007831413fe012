// y = A x for a block-CSR matrix on the host (rows in parallel with OpenMP).
#pragma once

#include <span>

#include "backends/mesh/block_csr.h"

namespace dualjit::solvers {

// A over a General pattern (an Upper one would need its mirror blocks: throws SolverError);
// x has n_nodes x block_cols values, y n_nodes x block_rows, overwritten.
void multiply(const mesh::BlockCsr<double>& a, std::span<const double> x, std::span<double> y);

}  // namespace dualjit::solvers
