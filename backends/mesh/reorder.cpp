#include "backends/mesh/reorder.h"

#include <algorithm>
#include <string>

#include "backends/mesh/node_graph.h"

namespace dualjit::mesh {

namespace {

// Breadth-first level structure from root: fills `queue` with the component in BFS order and
// returns the number of levels; `last_level_begin` marks where the deepest level starts in it.
// stamp/bfs_id avoid clearing a per-node array for every search.
int64_t level_structure(const detail::NodeGraph& g, int32_t root, std::vector<int64_t>& stamp,
                        int64_t bfs_id, std::vector<int32_t>& queue, size_t& last_level_begin) {
  queue.clear();
  queue.push_back(root);
  stamp[root] = bfs_id;
  size_t level_begin = 0;
  int64_t levels = 0;
  while (level_begin < queue.size()) {
    const size_t level_end = queue.size();
    last_level_begin = level_begin;
    ++levels;
    for (size_t q = level_begin; q < level_end; ++q) {
      const int32_t v = queue[q];
      for (int64_t i = g.row_ptr[v]; i < g.row_ptr[v + 1]; ++i) {
        const int32_t w = g.col_idx[i];
        if (stamp[w] != bfs_id) {
          stamp[w] = bfs_id;
          queue.push_back(w);
        }
      }
    }
    level_begin = level_end;
  }
  return levels;
}

void check_permutation(const std::vector<int32_t>& p, const char* what) {
  std::vector<uint8_t> seen(p.size(), 0);
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] < 0 || static_cast<size_t>(p[i]) >= p.size() || seen[p[i]]) {
      throw MeshError(std::string(what) + ": entry " + std::to_string(i) + " = " +
                      std::to_string(p[i]) + " breaks the permutation of " +
                      std::to_string(p.size()) + " nodes");
    }
    seen[p[i]] = 1;
  }
}

}  // namespace

std::vector<int32_t> reverse_cuthill_mckee(int64_t n_nodes,
                                           const std::vector<const ElementSet*>& sets) {
  const detail::NodeGraph g = detail::node_graph(n_nodes, sets, /*upper=*/false,
                                                 /*diagonal=*/false);
  auto degree = [&](int32_t v) { return g.row_ptr[v + 1] - g.row_ptr[v]; };

  // Components are entered from their lowest-degree node (a counting sort by degree), a good
  // seed for the pseudo-peripheral search.
  int64_t max_degree = 0;
  for (int32_t v = 0; v < n_nodes; ++v) max_degree = std::max(max_degree, degree(v));
  std::vector<int64_t> by_degree_ptr(max_degree + 2, 0);
  for (int32_t v = 0; v < n_nodes; ++v) ++by_degree_ptr[degree(v) + 1];
  for (int64_t d = 0; d <= max_degree; ++d) by_degree_ptr[d + 1] += by_degree_ptr[d];
  std::vector<int32_t> by_degree(n_nodes);
  for (int32_t v = 0; v < n_nodes; ++v) by_degree[by_degree_ptr[degree(v)]++] = v;

  std::vector<int64_t> stamp(n_nodes, -1);
  int64_t bfs_id = 0;
  std::vector<uint8_t> placed(n_nodes, 0);
  std::vector<int32_t> order;  // Cuthill-McKee order of old indices
  order.reserve(n_nodes);
  std::vector<int32_t> queue;
  std::vector<int32_t> neighbours;
  for (int32_t seed : by_degree) {
    if (placed[seed]) continue;
    // George-Liu: move to a min-degree node of the deepest level while the depth grows.
    int32_t root = seed;
    size_t last = 0;
    int64_t depth = level_structure(g, root, stamp, bfs_id++, queue, last);
    for (;;) {
      int32_t candidate = queue[last];
      for (size_t q = last; q < queue.size(); ++q) {
        if (degree(queue[q]) < degree(candidate)) candidate = queue[q];
      }
      size_t candidate_last = 0;
      const int64_t candidate_depth =
          level_structure(g, candidate, stamp, bfs_id++, queue, candidate_last);
      if (candidate_depth <= depth) break;
      root = candidate;
      depth = candidate_depth;
      last = candidate_last;
    }

    // Cuthill-McKee breadth-first numbering from root, neighbours by increasing degree.
    size_t head = order.size();
    order.push_back(root);
    placed[root] = 1;
    while (head < order.size()) {
      const int32_t v = order[head++];
      neighbours.clear();
      for (int64_t i = g.row_ptr[v]; i < g.row_ptr[v + 1]; ++i) {
        const int32_t w = g.col_idx[i];
        if (!placed[w]) {
          placed[w] = 1;
          neighbours.push_back(w);
        }
      }
      std::sort(neighbours.begin(), neighbours.end(), [&](int32_t a, int32_t b) {
        return degree(a) != degree(b) ? degree(a) < degree(b) : a < b;
      });
      order.insert(order.end(), neighbours.begin(), neighbours.end());
    }
  }

  // Reversing the Cuthill-McKee order gives the same bandwidth but a smaller profile/fill.
  std::vector<int32_t> new_of_old(n_nodes);
  for (int64_t i = 0; i < n_nodes; ++i)
    new_of_old[order[i]] = static_cast<int32_t>(n_nodes - 1 - i);
  return new_of_old;
}

std::vector<int32_t> inverse_permutation(const std::vector<int32_t>& p) {
  check_permutation(p, "inverse_permutation");
  std::vector<int32_t> inverse(p.size());
  for (size_t i = 0; i < p.size(); ++i) inverse[p[i]] = static_cast<int32_t>(i);
  return inverse;
}

ElementSet renumbered(const ElementSet& set, const std::vector<int32_t>& new_of_old) {
  check_permutation(new_of_old, "renumbered");
  ElementSet out{set.name, set.k, {}};
  out.conn.resize(set.conn.size());
  const int64_t n = static_cast<int64_t>(new_of_old.size());
  for (size_t i = 0; i < set.conn.size(); ++i) {
    const int32_t v = set.conn[i];
    if (v < 0 || v >= n) {
      throw MeshError("element set '" + set.name + "': element " +
                      std::to_string(set.k > 0 ? static_cast<int64_t>(i) / set.k : 0) +
                      " has node index " + std::to_string(v) + " outside the renumbering of " +
                      std::to_string(n) + " nodes");
    }
    out.conn[i] = new_of_old[v];
  }
  return out;
}

std::vector<double> permute_rows(const std::vector<double>& field, int width,
                                 const std::vector<int32_t>& new_of_old) {
  check_permutation(new_of_old, "permute_rows");
  const size_t n = new_of_old.size();
  if (width < 1 || field.size() != n * static_cast<size_t>(width)) {
    throw MeshError("permute_rows: field of " + std::to_string(field.size()) + " values is not " +
                    std::to_string(n) + " nodes x width " + std::to_string(width));
  }
  std::vector<double> out(field.size());
  for (size_t i = 0; i < n; ++i) {
    std::copy_n(field.begin() + i * width, width, out.begin() + size_t(new_of_old[i]) * width);
  }
  return out;
}

int64_t bandwidth(const BlockPattern& pattern) {
  int64_t bw = 0;
  const auto& row_ptr = pattern.row_ptr();
  const auto& col_idx = pattern.col_idx();
  for (int64_t r = 0; r < pattern.n_nodes(); ++r) {
    for (int64_t i = row_ptr[r]; i < row_ptr[r + 1]; ++i) {
      bw = std::max(bw, col_idx[i] > r ? col_idx[i] - r : r - col_idx[i]);
    }
  }
  return bw;
}

}  // namespace dualjit::mesh
