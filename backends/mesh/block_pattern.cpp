#include "backends/mesh/block_pattern.h"

#include <algorithm>
#include <limits>
#include <string>

#include "backends/mesh/node_graph.h"

namespace dualjit::mesh {

BlockPattern BlockPattern::build(int64_t n_nodes, const std::vector<const ElementSet*>& sets,
                                 Symmetry symmetry) {
  const bool upper = symmetry == Symmetry::Upper;
  BlockPattern p;
  detail::NodeGraph g = detail::node_graph(n_nodes, sets, upper, /*diagonal=*/true, &p.slots_);
  p.n_nodes_ = n_nodes;
  p.symmetry_ = symmetry;
  p.row_ptr_ = std::move(g.row_ptr);
  p.col_idx_ = std::move(g.col_idx);
  p.diag_ = std::move(g.diag);

  p.transposed_.resize(sets.size());
  for (size_t s = 0; s < sets.size(); ++s) {
    const ElementSet& set = *sets[s];
    p.k_.push_back(set.k);
    p.names_.push_back(set.name);
    if (!upper) continue;
    // A pair below the diagonal was folded onto its mirror block by node_graph.
    const int k = set.k;
    std::vector<uint8_t>& transposed = p.transposed_[s];
    transposed.resize(set.conn.size() * k);
    for (int64_t e = 0; e < set.size(); ++e) {
      const int32_t* v = set.conn.data() + e * k;
      for (int a = 0; a < k; ++a) {
        for (int b = 0; b < k; ++b) transposed[(e * k + a) * k + b] = v[b] < v[a];
      }
    }
  }
  return p;
}

BlockPattern BlockPattern::without_diagonal() const {
  if (!has_diagonal_) return *this;
  BlockPattern p;
  p.n_nodes_ = n_nodes_;
  p.symmetry_ = symmetry_;
  p.has_diagonal_ = false;
  p.k_ = k_;
  p.names_ = names_;
  p.transposed_ = transposed_;

  // Every row holds exactly one diagonal block, so row r loses r blocks before it.
  std::vector<int64_t> new_of_old(col_idx_.size());
  p.row_ptr_.resize(n_nodes_ + 1);
  p.col_idx_.reserve(col_idx_.size() - n_nodes_);
  p.row_ptr_[0] = 0;
  for (int64_t r = 0; r < n_nodes_; ++r) {
    for (int64_t i = row_ptr_[r]; i < row_ptr_[r + 1]; ++i) {
      if (col_idx_[i] == r) {
        new_of_old[i] = -1 - r;
        continue;
      }
      new_of_old[i] = static_cast<int64_t>(p.col_idx_.size());
      p.col_idx_.push_back(col_idx_[i]);
    }
    p.row_ptr_[r + 1] = static_cast<int64_t>(p.col_idx_.size());
  }
  p.slots_.resize(slots_.size());
  for (size_t s = 0; s < slots_.size(); ++s) {
    p.slots_[s].resize(slots_[s].size());
    std::transform(slots_[s].begin(), slots_[s].end(), p.slots_[s].begin(),
                   [&](int64_t old) { return new_of_old[old]; });
  }
  return p;
}

int64_t BlockPattern::diag_index(int64_t row) const {
  if (row < 0 || row >= n_nodes_) {
    throw MeshError("diag_index: row " + std::to_string(row) + " outside [0, " +
                    std::to_string(n_nodes_) + ")");
  }
  return has_diagonal_ ? diag_[row] : -1;
}

int64_t BlockPattern::find(int64_t row, int64_t col) const {
  if (row < 0 || row >= n_nodes_) return -1;
  const auto begin = col_idx_.begin() + row_ptr_[row];
  const auto end = col_idx_.begin() + row_ptr_[row + 1];
  const auto it = std::lower_bound(begin, end, col);
  return (it != end && *it == col) ? static_cast<int64_t>(it - col_idx_.begin()) : -1;
}

const std::vector<int64_t>& BlockPattern::checked_slots(size_t set_index) const {
  if (set_index >= slots_.size()) {
    throw MeshError("element set #" + std::to_string(set_index) + " is not part of this pattern (" +
                    std::to_string(slots_.size()) + " sets)");
  }
  return slots_[set_index];
}

int BlockPattern::set_k(size_t set_index) const {
  checked_slots(set_index);
  return k_[set_index];
}

const std::string& BlockPattern::set_name(size_t set_index) const {
  checked_slots(set_index);
  return names_[set_index];
}

const std::vector<int64_t>& BlockPattern::element_slots(size_t set_index) const {
  return checked_slots(set_index);
}

const std::vector<uint8_t>& BlockPattern::transposed(size_t set_index) const {
  checked_slots(set_index);
  return transposed_[set_index];
}

std::vector<int32_t> BlockPattern::row_ptr32() const {
  if (n_blocks() > std::numeric_limits<int32_t>::max()) {
    throw MeshError("row_ptr32: " + std::to_string(n_blocks()) +
                    " blocks exceed the int32 indices of cuSPARSE BSR");
  }
  return std::vector<int32_t>(row_ptr_.begin(), row_ptr_.end());
}

}  // namespace dualjit::mesh
