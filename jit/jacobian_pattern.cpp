#include "jit/jacobian_pattern.h"

#include <algorithm>
#include <iterator>

namespace dualjit::jit {

int64_t JacobianPattern::index(int row, int col) const {
  const auto first = col_idx.begin() + row_ptr[row], last = col_idx.begin() + row_ptr[row + 1];
  const auto it = std::lower_bound(first, last, col);
  return it != last && *it == col ? it - col_idx.begin() : -1;
}

void merge_operand_keys(const Node& n, size_t i, std::vector<std::vector<int32_t>>& deps,
                        std::vector<int32_t>& scratch) {
  if (is_leaf(n.op) || has_zero_derivative(n.op)) return;
  const int first = n.op == Op::Select ? 1 : 0;  // the condition carries no derivative
  for (int k = first; k < op_arity(n.op); ++k) {
    const std::vector<int32_t>& d = deps[n.operand(k)];
    scratch.clear();
    std::set_union(deps[i].begin(), deps[i].end(), d.begin(), d.end(), std::back_inserter(scratch));
    deps[i].swap(scratch);
  }
}

JacobianPattern jacobian_pattern(const Kernel& kernel) {
  const Graph& g = kernel.graph();
  // Per node, the sorted inputs it depends on; the graph is in topological order. Sorted
  // vectors, not bitsets: chemistry graphs have ~1e5 nodes over ~1e3 inputs, few per node.
  std::vector<std::vector<int32_t>> deps(g.size());
  std::vector<int32_t> merged;
  for (size_t i = 0; i < g.size(); ++i) {
    const Node& n = g.node(static_cast<NodeId>(i));
    if (n.op == Op::Input) {
      deps[i] = {static_cast<int32_t>(kernel.flat_index(n))};
      continue;
    }
    merge_operand_keys(n, i, deps, merged);
  }
  JacobianPattern p;
  p.n_rows = kernel.n_outputs();
  p.n_cols = kernel.n_inputs();
  p.row_ptr.push_back(0);
  for (NodeId out : kernel.outputs()) {
    p.col_idx.insert(p.col_idx.end(), deps[out].begin(), deps[out].end());
    p.row_ptr.push_back(static_cast<int32_t>(p.col_idx.size()));
  }
  return p;
}

}  // namespace dualjit::jit
