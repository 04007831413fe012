// Interop: Eigen sparse matrices, Matrix Market files and the cuSPARSE BSR layout.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include <Eigen/SparseCore>

#include "backends/mesh/block_csr.h"

namespace dualjit::mesh {

// How an Upper (symmetric) pattern is exported: Full mirrors every stored off-diagonal block to
// its transpose below the diagonal (square blocks only); AsStored emits the stored blocks only.
// General patterns export the same either way.
enum class Expansion { Full, AsStored };

// Scalar matrix of (n_nodes * block_rows) x (n_nodes * block_cols). Every stored block is emitted
// whole, so zeros inside blocks stay structural entries (the structure is the block pattern).
template <class T>
Eigen::SparseMatrix<double> to_eigen(const BlockCsr<T>& m, Expansion expansion = Expansion::Full);
// The split form: diagonal blocks from diag, the rest from off.
template <class OffT>
Eigen::SparseMatrix<double> to_eigen(const SplitBlockCsr<OffT>& m,
                                     Expansion expansion = Expansion::Full);

// "%%MatrixMarket matrix coordinate real general", 1-based indices, values as %.17g (exact
// round trip of doubles). Throws MeshError naming the path on I/O failure.
void write_matrix_market(const std::filesystem::path& path, const Eigen::SparseMatrix<double>& a);
// "%%MatrixMarket matrix array real general", a column of vector.size() rows.
void write_matrix_market(const std::filesystem::path& path, const std::vector<double>& vector);

// The arrays cusparse<t>bsrmv expects with CUSPARSE_DIRECTION_ROW (row-major blocks) and
// CUSPARSE_INDEX_BASE_ZERO: mb x nb blocks of block_dim x block_dim, nnzb stored blocks, int32
// row pointer (mb + 1) and column indices (nnzb). Here the pointers are host memory; a GPU backend
// uploads the same arrays and keeps the same shape.
template <class T>
struct BsrView {
  int mb = 0;
  int nb = 0;
  int nnzb = 0;
  int block_dim = 0;
  const int* row_ptr = nullptr;
  const int* col_idx = nullptr;
  const T* values = nullptr;
};

// View of m; row_ptr32 must be m.pattern->row_ptr32() and outlive the view. Throws MeshError for
// non-square blocks or an Upper pattern (bsrmv takes general matrices only).
template <class T>
BsrView<T> bsr_view(const BlockCsr<T>& m, const std::vector<int32_t>& row_ptr32);

}  // namespace dualjit::mesh
