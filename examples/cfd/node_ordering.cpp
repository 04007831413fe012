#include "examples/cfd/node_ordering.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace dualjit::cfd {

namespace {

void check_node_count(const char* who, int64_t n) {
  if (n < 0 || n > std::numeric_limits<int32_t>::max())
    throw std::invalid_argument(std::string(who) + ": node count " + std::to_string(n) +
                                " outside [0, 2^31)");
}

// Symmetric adjacency in CSR form, self-loops and duplicate edges removed.
struct Adjacency {
  std::vector<int64_t> offsets;
  std::vector<int32_t> neighbours;
  int64_t degree(int32_t v) const { return offsets[v + 1] - offsets[v]; }
};

Adjacency adjacency(int64_t n_nodes, const std::vector<int32_t>& edges) {
  if (edges.size() % 2 != 0)
    throw std::invalid_argument("reverse_cuthill_mckee: edges has odd size " +
                                std::to_string(edges.size()));
  Adjacency adj;
  adj.offsets.assign(static_cast<size_t>(n_nodes) + 1, 0);
  for (size_t e = 0; e < edges.size(); e += 2) {
    const int32_t a = edges[e], b = edges[e + 1];
    if (a < 0 || a >= n_nodes || b < 0 || b >= n_nodes)
      throw std::invalid_argument("reverse_cuthill_mckee: edge " + std::to_string(e / 2) + " (" +
                                  std::to_string(a) + ", " + std::to_string(b) +
                                  ") has a node outside [0, " + std::to_string(n_nodes) + ")");
    if (a == b) continue;
    ++adj.offsets[a + 1];
    ++adj.offsets[b + 1];
  }
  for (int64_t v = 0; v < n_nodes; ++v) adj.offsets[v + 1] += adj.offsets[v];
  adj.neighbours.resize(static_cast<size_t>(adj.offsets[n_nodes]));
  std::vector<int64_t> fill(adj.offsets.begin(), adj.offsets.end() - 1);
  for (size_t e = 0; e < edges.size(); e += 2) {
    const int32_t a = edges[e], b = edges[e + 1];
    if (a == b) continue;
    adj.neighbours[fill[a]++] = b;
    adj.neighbours[fill[b]++] = a;
  }
  // Compact away duplicates so that degrees count distinct neighbours.
  int64_t out = 0;
  for (int64_t v = 0; v < n_nodes; ++v) {
    auto first = adj.neighbours.begin() + adj.offsets[v];
    auto last = adj.neighbours.begin() + adj.offsets[v + 1];
    std::sort(first, last);
    const int64_t n = std::unique(first, last) - first;
    std::copy(first, first + n, adj.neighbours.begin() + out);
    adj.offsets[v] = out;
    out += n;
  }
  adj.offsets[n_nodes] = out;
  adj.neighbours.resize(static_cast<size_t>(out));
  return adj;
}

// Breadth-first level structure from `root`, restricted to its component. `mark` and `stamp`
// avoid clearing per-node state between searches.
struct Levels {
  std::vector<int32_t> order;  // visit order
  int64_t last_level_begin = 0;
  int64_t depth = 0;
};

Levels bfs_levels(const Adjacency& adj, int32_t root, std::vector<int64_t>& mark, int64_t stamp) {
  Levels lv;
  lv.order.push_back(root);
  mark[root] = stamp;
  int64_t begin = 0;
  while (true) {
    const int64_t end = static_cast<int64_t>(lv.order.size());
    lv.last_level_begin = begin;
    for (int64_t i = begin; i < end; ++i)
      for (int64_t k = adj.offsets[lv.order[i]]; k < adj.offsets[lv.order[i] + 1]; ++k) {
        const int32_t w = adj.neighbours[k];
        if (mark[w] != stamp) mark[w] = stamp, lv.order.push_back(w);
      }
    if (static_cast<int64_t>(lv.order.size()) == end) break;
    begin = end;
    ++lv.depth;
  }
  return lv;
}

}  // namespace

std::vector<int32_t> random_permutation(int64_t n, uint64_t seed) {
  check_node_count("random_permutation", n);
  std::vector<int32_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::mt19937_64 rng(seed);
  // Fisher-Yates with rejection sampling (std::shuffle and the distributions are not specified
  // exactly, so they would differ between standard libraries).
  for (int64_t i = n - 1; i > 0; --i) {
    const uint64_t range = static_cast<uint64_t>(i) + 1;
    const uint64_t limit =
        std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % range;
    uint64_t r;
    do r = rng();
    while (r >= limit);
    std::swap(p[i], p[r % range]);
  }
  return p;
}

std::vector<int32_t> reverse_cuthill_mckee(int64_t n_nodes, const std::vector<int32_t>& edges) {
  check_node_count("reverse_cuthill_mckee", n_nodes);
  const Adjacency adj = adjacency(n_nodes, edges);
  std::vector<int64_t> mark(static_cast<size_t>(n_nodes), -1);
  std::vector<char> numbered(static_cast<size_t>(n_nodes), 0);
  std::vector<int32_t> order;  // Cuthill-McKee order: order[k] = old index
  order.reserve(static_cast<size_t>(n_nodes));
  std::vector<int32_t> next;
  int64_t stamp = 0;
  for (int32_t start = 0; start < n_nodes; ++start) {
    if (numbered[start]) continue;
    // Pseudo-peripheral root (George-Liu): move to a least-degree node of the last BFS level
    // while that makes the level structure deeper.
    int32_t root = start;
    Levels lv = bfs_levels(adj, root, mark, stamp++);
    while (true) {
      int32_t candidate = lv.order[lv.last_level_begin];
      for (size_t i = lv.last_level_begin; i < lv.order.size(); ++i)
        if (adj.degree(lv.order[i]) < adj.degree(candidate)) candidate = lv.order[i];
      Levels trial = bfs_levels(adj, candidate, mark, stamp++);
      if (trial.depth <= lv.depth) break;
      root = candidate;
      lv = std::move(trial);
    }
    // Cuthill-McKee from the root: unnumbered neighbours by increasing degree, then index.
    size_t head = order.size();
    order.push_back(root);
    numbered[root] = 1;
    for (; head < order.size(); ++head) {
      const int32_t v = order[head];
      next.clear();
      for (int64_t k = adj.offsets[v]; k < adj.offsets[v + 1]; ++k)
        if (!numbered[adj.neighbours[k]]) next.push_back(adj.neighbours[k]);
      std::sort(next.begin(), next.end(), [&](int32_t a, int32_t b) {
        return adj.degree(a) != adj.degree(b) ? adj.degree(a) < adj.degree(b) : a < b;
      });
      for (int32_t w : next) numbered[w] = 1, order.push_back(w);
    }
  }
  std::vector<int32_t> new_of_old(static_cast<size_t>(n_nodes));
  for (int64_t k = 0; k < n_nodes; ++k)
    new_of_old[order[k]] = static_cast<int32_t>(n_nodes - 1 - k);
  return new_of_old;
}

std::vector<int32_t> inverse_permutation(const std::vector<int32_t>& p) {
  const int64_t n = static_cast<int64_t>(p.size());
  std::vector<int32_t> inv(p.size(), -1);
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] < 0 || p[i] >= n)
      throw std::invalid_argument("inverse_permutation: entry " + std::to_string(i) + " = " +
                                  std::to_string(p[i]) + " outside [0, " + std::to_string(n) + ")");
    if (inv[p[i]] != -1)
      throw std::invalid_argument("inverse_permutation: entries " + std::to_string(inv[p[i]]) +
                                  " and " + std::to_string(i) + " both map to " +
                                  std::to_string(p[i]));
    inv[p[i]] = static_cast<int32_t>(i);
  }
  return inv;
}

void renumber_nodes(TetMesh& mesh, const std::vector<int32_t>& new_of_old) {
  if (static_cast<int64_t>(new_of_old.size()) != mesh.n_nodes)
    throw std::invalid_argument("renumber_nodes: permutation has " +
                                std::to_string(new_of_old.size()) + " entries for " +
                                std::to_string(mesh.n_nodes) + " nodes");
  if (mesh.xyz.size() != static_cast<size_t>(mesh.n_nodes) * 3)
    throw std::invalid_argument("renumber_nodes: xyz has " + std::to_string(mesh.xyz.size()) +
                                " values for " + std::to_string(mesh.n_nodes) + " nodes");
  inverse_permutation(new_of_old);  // validates the bijection before anything changes
  for (size_t i = 0; i < mesh.tets.size(); ++i)
    if (mesh.tets[i] < 0 || mesh.tets[i] >= mesh.n_nodes)
      throw std::invalid_argument("renumber_nodes: tet " + std::to_string(i / 4) +
                                  " references node " + std::to_string(mesh.tets[i]) +
                                  " outside [0, " + std::to_string(mesh.n_nodes) + ")");
  std::vector<double> xyz(mesh.xyz.size());
  for (int64_t i = 0; i < mesh.n_nodes; ++i)
    for (int d = 0; d < 3; ++d)
      xyz[static_cast<size_t>(new_of_old[i]) * 3 + d] = mesh.xyz[static_cast<size_t>(i) * 3 + d];
  mesh.xyz = std::move(xyz);
  for (int32_t& v : mesh.tets) v = new_of_old[v];
}

int64_t edge_bandwidth(const std::vector<int32_t>& edges) {
  int64_t bw = 0;
  for (size_t e = 0; e + 1 < edges.size(); e += 2)
    bw = std::max<int64_t>(bw, std::abs(static_cast<int64_t>(edges[e]) - edges[e + 1]));
  return bw;
}

}  // namespace dualjit::cfd
