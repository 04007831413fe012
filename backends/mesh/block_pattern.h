// Block-CSR sparsity over the node graph implied by element sets, with per-element block slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/mesh/element_set.h"

namespace dualjit::mesh {

// General keeps every coupled block; Upper keeps only blocks with col >= row (a symmetric matrix
// stored by its upper block triangle; diagonal blocks are stored whole).
enum class Symmetry { General, Upper };

// The block sparsity of a global matrix over n_nodes block rows/columns: block (r, c) is present
// iff nodes r and c are vertices of a common element, plus every diagonal block (isolated nodes
// included). Built once on the host before any derivative runs; immutable afterwards.
//
// Per element set it records the slot map used by scatter assembly: for element e and local
// vertex pair (a, b), element_slots(s)[(e*k + a)*k + b] is the block index of
// (conn[e*k+a], conn[e*k+b]). With Symmetry::Upper a pair whose block lies below the diagonal is
// mapped to its mirror (min, max) and flagged in transposed(s); a symmetric assembly skips those
// pairs (their contribution is the transpose of the (b, a) pair's). In a pattern without diagonal
// (without_diagonal()) a pair on the diagonal of node n has the negative slot -1 - n
// (diag_slot_node() recovers n): it belongs to a separate per-node store, and a kernel needs no
// connectivity read to find it.
class BlockPattern {
 public:
  static BlockPattern build(int64_t n_nodes, const std::vector<const ElementSet*>& sets,
                            Symmetry symmetry = Symmetry::General);

  // The same pattern with the diagonal blocks removed (FUN3D-style separate Adiag): block indices
  // are renumbered, diag_index() is -1 and element slots of diagonal pairs become -1 - node.
  BlockPattern without_diagonal() const;

  int64_t n_nodes() const { return n_nodes_; }
  int64_t n_blocks() const { return static_cast<int64_t>(col_idx_.size()); }
  Symmetry symmetry() const { return symmetry_; }
  bool has_diagonal() const { return has_diagonal_; }

  const std::vector<int64_t>& row_ptr() const { return row_ptr_; }  // n_nodes + 1
  const std::vector<int32_t>& col_idx() const { return col_idx_; }  // sorted within each row

  // Block index of the diagonal block of row; -1 in a pattern without diagonal.
  int64_t diag_index(int64_t row) const;
  // Block index of (row, col), or -1 when the block is not stored (binary search in the row).
  int64_t find(int64_t row, int64_t col) const;

  size_t n_sets() const { return slots_.size(); }
  int set_k(size_t set_index) const;
  const std::string& set_name(size_t set_index) const;
  // n_elements * k * k block indices, see the class comment.
  const std::vector<int64_t>& element_slots(size_t set_index) const;
  // Same size as element_slots with Symmetry::Upper (1 where the pair maps to its mirror block);
  // empty with Symmetry::General, where no pair is transposed.
  const std::vector<uint8_t>& transposed(size_t set_index) const;

  // The node of a negative (diagonal) slot of a pattern without diagonal.
  static int64_t diag_slot_node(int64_t slot) { return -1 - slot; }

  // Row pointer narrowed to int32 as cuSPARSE BSR wants; throws MeshError when n_blocks exceeds
  // int32.
  std::vector<int32_t> row_ptr32() const;

 private:
  const std::vector<int64_t>& checked_slots(size_t set_index) const;

  int64_t n_nodes_ = 0;
  Symmetry symmetry_ = Symmetry::General;
  bool has_diagonal_ = true;
  std::vector<int64_t> row_ptr_{0};
  std::vector<int32_t> col_idx_;
  std::vector<int64_t> diag_;  // per row; empty without diagonal
  std::vector<int> k_;         // per set
  std::vector<std::string> names_;
  std::vector<std::vector<int64_t>> slots_;
  std::vector<std::vector<uint8_t>> transposed_;
};

}  // namespace dualjit::mesh
