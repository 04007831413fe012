// Block-CSR value storage over a BlockPattern, and the FUN3D-style split diagonal/off-diagonal
// form.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "backends/mesh/block_pattern.h"

namespace dualjit::mesh {

// Values of a block-sparse matrix of n_nodes x n_nodes blocks, each block_rows x block_cols.
// The pattern is not owned and must outlive the matrix (many matrices share one pattern).
template <class T>
struct BlockCsr {
  const BlockPattern* pattern = nullptr;
  int block_rows = 0;
  int block_cols = 0;
  std::vector<T> values;  // n_blocks * block_rows * block_cols, block i at i * block_size(),
                          // each block row-major

  static BlockCsr zeros(const BlockPattern& pattern, int block_rows, int block_cols);

  int64_t block_size() const { return static_cast<int64_t>(block_rows) * block_cols; }
  T* block(int64_t index) { return values.data() + index * block_size(); }
  const T* block(int64_t index) const { return values.data() + index * block_size(); }
  void set_zero();
};

// Diagonal blocks kept apart in fp64 (one per node, as FUN3D's Adiag: they are what a
// preconditioner inverts), off-diagonal blocks in OffT (float halves their bandwidth).
// off.pattern is a pattern without diagonal (BlockPattern::without_diagonal()).
template <class OffT>
struct SplitBlockCsr {
  std::vector<double> diag;  // n_nodes * block_rows * block_cols, node-major, blocks row-major
  BlockCsr<OffT> off;

  static SplitBlockCsr zeros(const BlockPattern& off_pattern, int block_rows, int block_cols);

  const BlockPattern& pattern() const { return *off.pattern; }
  int block_rows() const { return off.block_rows; }
  int block_cols() const { return off.block_cols; }
  double* diag_block(int64_t node) { return diag.data() + node * off.block_size(); }
  const double* diag_block(int64_t node) const { return diag.data() + node * off.block_size(); }
  void set_zero();
};

// Adds one element's dense derivative block to the global matrix. element_matrix is row-major
// (k * block_rows) x (k * block_cols): entry (a * block_rows + i, b * block_cols + j) is the
// derivative of output component i at local vertex a with respect to input component j at local
// vertex b, and lands in block (conn[a], conn[b]). With Symmetry::Upper the pairs flagged
// transposed are skipped (a symmetric element matrix holds them as the mirror of stored pairs).
// Sequential: concurrent calls on one matrix race.
template <class T>
void add_element_block(BlockCsr<T>& m, size_t set_index, int64_t element,
                       const double* element_matrix);
template <class OffT>
void add_element_block(SplitBlockCsr<OffT>& m, size_t set_index, int64_t element,
                       const double* element_matrix);

// The same for every element of a set: element_matrices holds n_elements dense blocks back to
// back (element-major).
template <class T>
void add_element_blocks(BlockCsr<T>& m, size_t set_index, std::span<const double> element_matrices);
template <class OffT>
void add_element_blocks(SplitBlockCsr<OffT>& m, size_t set_index,
                        std::span<const double> element_matrices);

extern template struct BlockCsr<float>;
extern template struct BlockCsr<double>;
extern template struct SplitBlockCsr<float>;
extern template struct SplitBlockCsr<double>;

}  // namespace dualjit::mesh
