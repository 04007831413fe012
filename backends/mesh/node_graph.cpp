#include "backends/mesh/node_graph.h"

#include <algorithm>
#include <limits>
#include <string>

namespace dualjit::mesh::detail {

namespace {

// Calls f(row, col, at) for every local pair (a, b) of distinct nodes, at = (e*k + a)*k + b.
// With upper, pairs are folded to (min, max) so both orientations of a pair share one block.
template <class F>
void for_each_pair(const ElementSet& set, bool upper, F&& f) {
  const int k = set.k;
  const int64_t n = set.size();
  for (int64_t e = 0; e < n; ++e) {
    const int32_t* v = set.conn.data() + e * k;
    for (int a = 0; a < k; ++a) {
      for (int b = 0; b < k; ++b) {
        if (v[a] == v[b]) continue;
        const int64_t at = (e * k + a) * k + b;
        if (upper && v[b] < v[a]) {
          f(v[b], v[a], at);
        } else {
          f(v[a], v[b], at);
        }
      }
    }
  }
}

// One coupling on its way to the pattern: the block (row, col) and, when slots are wanted, the
// element slot that must receive the block's index.
struct Coupling {
  int32_t row;
  int32_t col;
  int64_t* origin;
};

// Rows per coarse bucket: a bucket's rows and couplings fit in L2, and the write cursors of all
// buckets (one cache line each) stay cached while scattering.
constexpr int kBucketShift = 10;

}  // namespace

NodeGraph node_graph(int64_t n_nodes, const std::vector<const ElementSet*>& sets, bool upper,
                     bool diagonal, std::vector<std::vector<int64_t>>* slots) {
  if (n_nodes < 0 || n_nodes > std::numeric_limits<int32_t>::max()) {
    throw MeshError("node count " + std::to_string(n_nodes) + " does not fit int32 block indices");
  }
  for (size_t s = 0; s < sets.size(); ++s) {
    if (sets[s] == nullptr) throw MeshError("element set #" + std::to_string(s) + " is null");
    validate(*sets[s], n_nodes, /*allow_repeated_vertex=*/true);
  }
  if (slots) {
    slots->assign(sets.size(), {});
    for (size_t s = 0; s < sets.size(); ++s) {
      (*slots)[s].resize(sets[s]->conn.size() * sets[s]->k);
    }
  }

  // Two-level counting sort of all couplings by row, duplicates included. Scattering straight to
  // ~1M rows would miss cache on every coupling; scattering to ~1K coarse buckets streams, and
  // each bucket is then sorted by row in cache. Upper keeps both orientations of a pair (as
  // duplicates) so that each carries its own slot.
  const int64_t n_buckets = (n_nodes >> kBucketShift) + 1;
  std::vector<int64_t> bucket_start(n_buckets + 1, 0);
  for (const ElementSet* set : sets) {
    for_each_pair(*set, upper,
                  [&](int32_t r, int32_t, int64_t) { ++bucket_start[(r >> kBucketShift) + 1]; });
  }
  for (int64_t b = 0; b < n_buckets; ++b) bucket_start[b + 1] += bucket_start[b];
  std::vector<Coupling> couplings(bucket_start[n_buckets]);
  {
    std::vector<int64_t> cursor(bucket_start.begin(), bucket_start.end() - 1);
    for (size_t s = 0; s < sets.size(); ++s) {
      int64_t* set_slots = slots ? (*slots)[s].data() : nullptr;
      for_each_pair(*sets[s], upper, [&](int32_t r, int32_t c, int64_t at) {
        couplings[cursor[r >> kBucketShift]++] = {r, c, set_slots ? set_slots + at : nullptr};
      });
    }
  }

  NodeGraph g;
  g.row_ptr.resize(n_nodes + 1);
  g.row_ptr[0] = 0;
  g.col_idx.reserve(couplings.size() + (diagonal ? n_nodes : 0));
  if (diagonal) g.diag.resize(n_nodes);
  std::vector<int64_t> row_start;
  std::vector<Coupling> by_row;
  for (int64_t b = 0; b < n_buckets; ++b) {
    const int64_t first_row = b << kBucketShift;
    const int64_t n_rows = std::min<int64_t>(int64_t(1) << kBucketShift, n_nodes - first_row);
    const Coupling* begin = couplings.data() + bucket_start[b];
    const Coupling* end = couplings.data() + bucket_start[b + 1];
    row_start.assign(n_rows + 1, 0);
    for (const Coupling* x = begin; x != end; ++x) ++row_start[x->row - first_row + 1];
    for (int64_t r = 0; r < n_rows; ++r) row_start[r + 1] += row_start[r];
    by_row.resize(end - begin);
    for (const Coupling* x = begin; x != end; ++x) by_row[row_start[x->row - first_row]++] = *x;
    // row_start[r] now holds the end of row r (the start of row r + 1).

    int64_t row_begin = 0;
    for (int64_t lr = 0; lr < n_rows; ++lr) {
      const int64_t r = first_row + lr;
      const auto rb = by_row.begin() + row_begin;
      const auto re = by_row.begin() + row_start[lr];
      row_begin = row_start[lr];
      std::sort(rb, re, [](const Coupling& x, const Coupling& y) { return x.col < y.col; });
      // The diagonal is never among the couplings; it is merged in at its sorted position.
      bool diagonal_pending = diagonal;
      int32_t prev = -1;
      for (auto x = rb; x != re; ++x) {
        if (diagonal_pending && x->col > r) {
          g.diag[r] = static_cast<int64_t>(g.col_idx.size());
          g.col_idx.push_back(static_cast<int32_t>(r));
          diagonal_pending = false;
        }
        if (x->col != prev) {
          g.col_idx.push_back(x->col);
          prev = x->col;
        }
        if (x->origin) *x->origin = static_cast<int64_t>(g.col_idx.size()) - 1;
      }
      if (diagonal_pending) {
        g.diag[r] = static_cast<int64_t>(g.col_idx.size());
        g.col_idx.push_back(static_cast<int32_t>(r));
      }
      g.row_ptr[r + 1] = static_cast<int64_t>(g.col_idx.size());
    }
  }
  g.col_idx.shrink_to_fit();

  // Pairs on the diagonal, the only slots not written above.
  if (slots) {
    for (size_t s = 0; s < sets.size(); ++s) {
      const ElementSet& set = *sets[s];
      const int k = set.k;
      int64_t* set_slots = (*slots)[s].data();
      for (int64_t e = 0; e < set.size(); ++e) {
        const int32_t* v = set.conn.data() + e * k;
        for (int a = 0; a < k; ++a) {
          for (int b = 0; b < k; ++b) {
            if (v[a] != v[b]) continue;
            set_slots[(e * k + a) * k + b] = diagonal ? g.diag[v[a]] : -1 - int64_t(v[a]);
          }
        }
      }
    }
  }
  return g;
}

}  // namespace dualjit::mesh::detail
