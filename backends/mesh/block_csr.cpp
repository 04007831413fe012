#include "backends/mesh/block_csr.h"

#include <algorithm>
#include <string>

namespace dualjit::mesh {

namespace {

void check_block_shape(int block_rows, int block_cols) {
  if (block_rows < 1 || block_cols < 1) {
    throw MeshError("block shape " + std::to_string(block_rows) + "x" + std::to_string(block_cols) +
                    " must be at least 1x1");
  }
}

// Checks the element index and returns the start of its slots (and transposed flags).
int64_t element_base(const BlockPattern& p, size_t set_index, int64_t element) {
  const int k = p.set_k(set_index);
  const int64_t n = static_cast<int64_t>(p.element_slots(set_index).size()) / (int64_t(k) * k);
  if (element < 0 || element >= n) {
    throw MeshError("element set '" + p.set_name(set_index) + "': element " +
                    std::to_string(element) + " outside [0, " + std::to_string(n) + ")");
  }
  return element * k * k;
}

// Accumulates block (a, b) of a row-major element matrix into a row-major destination block.
template <class T>
void add_sub_block(T* dst, const double* element_matrix, int k, int a, int b, int br, int bc) {
  const int64_t ld = static_cast<int64_t>(k) * bc;
  const double* src = element_matrix + (int64_t(a) * br) * ld + int64_t(b) * bc;
  for (int i = 0; i < br; ++i) {
    for (int j = 0; j < bc; ++j) dst[i * bc + j] += static_cast<T>(src[i * ld + j]);
  }
}

// Visits the (a, b) pairs of an element that a matrix over p stores, with their slots.
template <class F>
void for_each_stored_pair(const BlockPattern& p, size_t set_index, int64_t element, F&& f) {
  const int k = p.set_k(set_index);
  const int64_t base = element_base(p, set_index, element);
  const std::vector<int64_t>& slots = p.element_slots(set_index);
  const std::vector<uint8_t>& transposed = p.transposed(set_index);
  for (int a = 0; a < k; ++a) {
    for (int b = 0; b < k; ++b) {
      const int64_t at = base + a * k + b;
      if (!transposed.empty() && transposed[at]) continue;
      f(a, b, slots[at]);
    }
  }
}

template <class M>
void add_all(M& m, size_t set_index, std::span<const double> element_matrices, int64_t br,
             int64_t bc, const BlockPattern& p) {
  const int k = p.set_k(set_index);
  const int64_t per_element = int64_t(k) * k * br * bc;
  const int64_t n = static_cast<int64_t>(p.element_slots(set_index).size()) / (int64_t(k) * k);
  if (static_cast<int64_t>(element_matrices.size()) != n * per_element) {
    throw MeshError("element set '" + p.set_name(set_index) + "': " +
                    std::to_string(element_matrices.size()) + " element matrix values, expected " +
                    std::to_string(n) + " elements x " + std::to_string(per_element));
  }
  for (int64_t e = 0; e < n; ++e) {
    add_element_block(m, set_index, e, element_matrices.data() + e * per_element);
  }
}

}  // namespace

template <class T>
BlockCsr<T> BlockCsr<T>::zeros(const BlockPattern& pattern, int block_rows, int block_cols) {
  check_block_shape(block_rows, block_cols);
  BlockCsr m;
  m.pattern = &pattern;
  m.block_rows = block_rows;
  m.block_cols = block_cols;
  m.values.assign(pattern.n_blocks() * m.block_size(), T(0));
  return m;
}

template <class T>
void BlockCsr<T>::set_zero() {
  std::fill(values.begin(), values.end(), T(0));
}

template <class OffT>
SplitBlockCsr<OffT> SplitBlockCsr<OffT>::zeros(const BlockPattern& off_pattern, int block_rows,
                                               int block_cols) {
  if (off_pattern.has_diagonal()) {
    throw MeshError(
        "SplitBlockCsr needs a pattern without diagonal blocks (BlockPattern::without_diagonal)");
  }
  SplitBlockCsr m;
  m.off = BlockCsr<OffT>::zeros(off_pattern, block_rows, block_cols);
  m.diag.assign(off_pattern.n_nodes() * m.off.block_size(), 0.0);
  return m;
}

template <class OffT>
void SplitBlockCsr<OffT>::set_zero() {
  std::fill(diag.begin(), diag.end(), 0.0);
  off.set_zero();
}

template <class T>
void add_element_block(BlockCsr<T>& m, size_t set_index, int64_t element,
                       const double* element_matrix) {
  const BlockPattern& p = *m.pattern;
  const int k = p.set_k(set_index);
  for_each_stored_pair(p, set_index, element, [&](int a, int b, int64_t slot) {
    if (slot < 0) {
      throw MeshError("element set '" + p.set_name(set_index) + "': element " +
                      std::to_string(element) +
                      " touches a diagonal block, but the pattern has none (use SplitBlockCsr)");
    }
    add_sub_block(m.block(slot), element_matrix, k, a, b, m.block_rows, m.block_cols);
  });
}

template <class OffT>
void add_element_block(SplitBlockCsr<OffT>& m, size_t set_index, int64_t element,
                       const double* element_matrix) {
  const BlockPattern& p = m.pattern();
  const int k = p.set_k(set_index);
  const int br = m.block_rows();
  const int bc = m.block_cols();
  for_each_stored_pair(p, set_index, element, [&](int a, int b, int64_t slot) {
    // Diagonal pairs carry their node in the negative slot: no connectivity needed here.
    if (slot >= 0) {
      add_sub_block(m.off.block(slot), element_matrix, k, a, b, br, bc);
    } else {
      add_sub_block(m.diag_block(BlockPattern::diag_slot_node(slot)), element_matrix, k, a, b, br,
                    bc);
    }
  });
}

template <class T>
void add_element_blocks(BlockCsr<T>& m, size_t set_index,
                        std::span<const double> element_matrices) {
  add_all(m, set_index, element_matrices, m.block_rows, m.block_cols, *m.pattern);
}

template <class OffT>
void add_element_blocks(SplitBlockCsr<OffT>& m, size_t set_index,
                        std::span<const double> element_matrices) {
  add_all(m, set_index, element_matrices, m.block_rows(), m.block_cols(), m.pattern());
}

template struct BlockCsr<float>;
template struct BlockCsr<double>;
template struct SplitBlockCsr<float>;
template struct SplitBlockCsr<double>;

template void add_element_block(BlockCsr<float>&, size_t, int64_t, const double*);
template void add_element_block(BlockCsr<double>&, size_t, int64_t, const double*);
template void add_element_block(SplitBlockCsr<float>&, size_t, int64_t, const double*);
template void add_element_block(SplitBlockCsr<double>&, size_t, int64_t, const double*);
template void add_element_blocks(BlockCsr<float>&, size_t, std::span<const double>);
template void add_element_blocks(BlockCsr<double>&, size_t, std::span<const double>);
template void add_element_blocks(SplitBlockCsr<float>&, size_t, std::span<const double>);
template void add_element_blocks(SplitBlockCsr<double>&, size_t, std::span<const double>);

}  // namespace dualjit::mesh
