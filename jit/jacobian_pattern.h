// The structural sparsity of a kernel's Jacobian: which outputs depend on which active inputs,
// from the graph alone (comparisons and sign carry no derivative; a select's condition neither;
// a cut depends on what its operand depends on). A sparse Jacobian kernel
// (LoweringOptions::sparse_jacobian) stores, per element, only these entries, in this order.
#pragma once

#include <cstdint>
#include <vector>

#include "dsl/kernel.h"

namespace dualjit::jit {

// CSR over n_outputs x n_inputs; columns ascending within a row.
struct JacobianPattern {
  int n_rows = 0, n_cols = 0;
  std::vector<int32_t> row_ptr;  // n_rows + 1
  std::vector<int32_t> col_idx;  // nnz
  int64_t nnz() const { return static_cast<int64_t>(col_idx.size()); }
  // Position of (row, col) among the stored entries, or -1 for a structural zero.
  int64_t index(int row, int col) const;
  bool operator==(const JacobianPattern&) const = default;
};

JacobianPattern jacobian_pattern(const Kernel& kernel);

// One step of a pass over a graph in topological order that gives each node the sorted keys
// (inputs, cuts) its derivative depends on: deps[i] |= deps of n's operands, those a derivative
// goes through (none for leaves, comparisons and sign; not a select's condition). `scratch` is
// reused between calls.
void merge_operand_keys(const Node& n, size_t i, std::vector<std::vector<int32_t>>& deps,
                        std::vector<int32_t>& scratch);

}  // namespace dualjit::jit
