// A distance-1 colouring of a block pattern's node graph: no two nodes of one colour share a
// block, so a Gauss-Seidel sweep updates all nodes of a colour at once (in parallel threads)
// and gives the same result as any sequential order within the colour.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace dualjit::solvers {

struct NodeColoring {
  int n_colors = 0;
  // Nodes of colour c: nodes[color_ptr[c] .. color_ptr[c + 1]), ascending.
  std::vector<int64_t> color_ptr;
  std::vector<int32_t> nodes;
};

// Greedy colouring in node order (each node takes the smallest colour none of its neighbours
// has): deterministic, and on tetrahedral meshes a colour count near the largest degree plus
// one. row_ptr has n + 1 entries and col_idx the column of each block, the diagonal
// included or not. Throws SolverError naming the row whose pointers or columns are out of
// range.
NodeColoring color_nodes(std::span<const int64_t> row_ptr, std::span<const int32_t> col_idx);

}  // namespace dualjit::solvers
