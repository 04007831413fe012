#include "solvers/node_coloring.h"

#include <algorithm>
#include <string>

#include "solvers/solver_error.h"

namespace dualjit::solvers {

NodeColoring color_nodes(std::span<const int64_t> row_ptr, std::span<const int32_t> col_idx) {
  if (row_ptr.empty()) throw SolverError("color_nodes: an empty row pointer");
  const int64_t n = static_cast<int64_t>(row_ptr.size()) - 1;
  std::vector<int32_t> color(n, -1);
  // mark[c] == i: colour c is taken by a neighbour of node i.
  std::vector<int64_t> mark;
  NodeColoring out;
  for (int64_t i = 0; i < n; ++i) {
    if (row_ptr[i] < 0 || row_ptr[i] > row_ptr[i + 1] ||
        row_ptr[i + 1] > static_cast<int64_t>(col_idx.size())) {
      throw SolverError("color_nodes: row " + std::to_string(i) + " has pointers " +
                        std::to_string(row_ptr[i]) + ".." + std::to_string(row_ptr[i + 1]) +
                        " for " + std::to_string(col_idx.size()) + " blocks");
    }
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const int32_t j = col_idx[k];
      if (j < 0 || j >= n) {
        throw SolverError("color_nodes: row " + std::to_string(i) + " has column " +
                          std::to_string(j) + " of " + std::to_string(n));
      }
      if (j != i && color[j] >= 0) mark[color[j]] = i;
    }
    int32_t c = 0;
    while (c < out.n_colors && mark[c] == i) ++c;
    if (c == out.n_colors) {
      ++out.n_colors;
      mark.push_back(-1);
    }
    color[i] = c;
  }
  // The pattern may be unsymmetric: a later row's neighbour j < i has colour checked only from
  // row i's side, so check every block once more.
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      if (col_idx[k] != i && color[col_idx[k]] == color[i]) {
        throw SolverError("color_nodes: rows " + std::to_string(i) + " and " +
                          std::to_string(col_idx[k]) +
                          " share a colour: the pattern is not structurally symmetric");
      }
  out.color_ptr.assign(out.n_colors + 1, 0);
  for (int64_t i = 0; i < n; ++i) ++out.color_ptr[color[i] + 1];
  for (int c = 0; c < out.n_colors; ++c) out.color_ptr[c + 1] += out.color_ptr[c];
  out.nodes.resize(n);
  std::vector<int64_t> next(out.color_ptr.begin(), out.color_ptr.end() - 1);
  for (int64_t i = 0; i < n; ++i) out.nodes[next[color[i]]++] = static_cast<int32_t>(i);
  return out;
}

}  // namespace dualjit::solvers
