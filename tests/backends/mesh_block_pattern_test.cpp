#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "backends/mesh/block_pattern.h"
#include "backends/mesh/incidence.h"
#include "mesh_test_util.h"

using namespace dualjit::mesh;
using dualjit::mesh::test::brute_pattern;
using dualjit::mesh::test::mesh_error_of;
using dualjit::mesh::test::random_set;

namespace {

std::set<std::pair<int64_t, int64_t>> pattern_set(const BlockPattern& p) {
  std::set<std::pair<int64_t, int64_t>> s;
  for (int64_t r = 0; r < p.n_nodes(); ++r) {
    for (int64_t i = p.row_ptr()[r]; i < p.row_ptr()[r + 1]; ++i) s.insert({r, p.col_idx()[i]});
  }
  return s;
}

int64_t row_of_block(const BlockPattern& p, int64_t block) {
  const auto& rp = p.row_ptr();
  return std::upper_bound(rp.begin(), rp.end(), block) - rp.begin() - 1;
}

void check_structure(const BlockPattern& p) {
  REQUIRE(static_cast<int64_t>(p.row_ptr().size()) == p.n_nodes() + 1);
  CHECK(p.row_ptr().front() == 0);
  CHECK(p.row_ptr().back() == p.n_blocks());
  for (int64_t r = 0; r < p.n_nodes(); ++r) {
    const auto b = p.col_idx().begin() + p.row_ptr()[r];
    const auto e = p.col_idx().begin() + p.row_ptr()[r + 1];
    CHECK(std::adjacent_find(b, e, [](int32_t x, int32_t y) { return x >= y; }) == e);
  }
}

struct Mesh {
  int32_t n_nodes;
  std::vector<ElementSet> sets;
  std::vector<const ElementSet*> ptrs() const {
    std::vector<const ElementSet*> p;
    for (const ElementSet& s : sets) p.push_back(&s);
    return p;
  }
};

// Triangles, tets, edges and degenerate (repeated-vertex) quads over the same nodes; some nodes
// stay isolated since n_nodes exceeds what the elements touch.
Mesh random_mesh(uint32_t seed) {
  std::mt19937 rng(seed);
  const int32_t touched = 150 + static_cast<int32_t>(rng() % 200);
  Mesh m{touched + 17, {}};
  m.sets.push_back(random_set("tris", 3, 300, touched, rng));
  m.sets.push_back(random_set("tets", 4, 200, touched, rng));
  m.sets.push_back(random_set("edges", 2, 600, touched, rng));
  m.sets.push_back(random_set("degenerate", 4, 50, touched, rng, /*distinct=*/false));
  m.sets.push_back(ElementSet{"empty", 3, {}});
  return m;
}

}  // namespace

TEST_CASE("mesh: BlockPattern equals a brute-force std::set construction") {
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    const Mesh m = random_mesh(seed);
    for (Symmetry sym : {Symmetry::General, Symmetry::Upper}) {
      const bool upper = sym == Symmetry::Upper;
      CAPTURE(seed);
      CAPTURE(upper);
      const BlockPattern p = BlockPattern::build(m.n_nodes, m.ptrs(), sym);
      check_structure(p);
      CHECK(p.symmetry() == sym);
      CHECK(p.has_diagonal());
      CHECK(pattern_set(p) == brute_pattern(m.n_nodes, m.ptrs(), upper));
      for (int64_t r = 0; r < m.n_nodes; ++r) {
        REQUIRE(p.diag_index(r) >= 0);
        CHECK(p.col_idx()[p.diag_index(r)] == r);
        CHECK(row_of_block(p, p.diag_index(r)) == r);
      }
      // find agrees with the pattern, including absent blocks.
      std::mt19937 rng(seed);
      const auto ref = brute_pattern(m.n_nodes, m.ptrs(), upper);
      for (int t = 0; t < 2000; ++t) {
        const int64_t r = rng() % m.n_nodes, c = rng() % m.n_nodes;
        const int64_t f = p.find(r, c);
        CHECK((f >= 0) == (ref.count({r, c}) > 0));
        if (f >= 0) CHECK((p.col_idx()[f] == c && row_of_block(p, f) == r));
      }
    }
  }
}

TEST_CASE("mesh: element_slots point at the right (row, col), upper ones flag transposes") {
  const Mesh m = random_mesh(7);
  const BlockPattern full = BlockPattern::build(m.n_nodes, m.ptrs());
  const BlockPattern upper = BlockPattern::build(m.n_nodes, m.ptrs(), Symmetry::Upper);
  REQUIRE(full.n_sets() == m.sets.size());
  for (size_t s = 0; s < m.sets.size(); ++s) {
    const ElementSet& set = m.sets[s];
    const int k = set.k;
    CHECK(full.set_k(s) == k);
    CHECK(full.set_name(s) == set.name);
    REQUIRE(static_cast<int64_t>(full.element_slots(s).size()) == set.size() * k * k);
    REQUIRE(upper.element_slots(s).size() == full.element_slots(s).size());
    CHECK(full.transposed(s).empty());
    REQUIRE(upper.transposed(s).size() == upper.element_slots(s).size());
    for (int64_t e = 0; e < set.size(); ++e) {
      for (int a = 0; a < k; ++a) {
        for (int b = 0; b < k; ++b) {
          const int64_t at = (e * k + a) * k + b;
          const int64_t r = set.vertex(e, a), c = set.vertex(e, b);
          const int64_t slot = full.element_slots(s)[at];
          REQUIRE(slot >= 0);
          REQUIRE(slot < full.n_blocks());
          CHECK(row_of_block(full, slot) == r);
          CHECK(full.col_idx()[slot] == c);

          const int64_t us = upper.element_slots(s)[at];
          REQUIRE(us >= 0);
          CHECK(row_of_block(upper, us) == std::min(r, c));
          CHECK(upper.col_idx()[us] == std::max(r, c));
          CHECK(upper.transposed(s)[at] == (r > c ? 1 : 0));
        }
      }
    }
  }
  CHECK(mesh_error_of([&] { (void)full.element_slots(m.sets.size()); }).find("not part") !=
        std::string::npos);
}

TEST_CASE("mesh: without_diagonal removes diagonals and encodes their node in the slot") {
  const Mesh m = random_mesh(9);
  for (Symmetry sym : {Symmetry::General, Symmetry::Upper}) {
    const BlockPattern p = BlockPattern::build(m.n_nodes, m.ptrs(), sym);
    const BlockPattern off = p.without_diagonal();
    check_structure(off);
    CHECK_FALSE(off.has_diagonal());
    CHECK(off.n_blocks() == p.n_blocks() - m.n_nodes);
    auto expected = pattern_set(p);
    for (int64_t n = 0; n < m.n_nodes; ++n) expected.erase({n, n});
    CHECK(pattern_set(off) == expected);
    CHECK(off.diag_index(0) == -1);
    for (size_t s = 0; s < m.sets.size(); ++s) {
      const auto& full_slots = p.element_slots(s);
      const auto& off_slots = off.element_slots(s);
      REQUIRE(off_slots.size() == full_slots.size());
      CHECK(off.transposed(s) == p.transposed(s));
      for (size_t i = 0; i < full_slots.size(); ++i) {
        const int64_t r = row_of_block(p, full_slots[i]);
        const int64_t c = p.col_idx()[full_slots[i]];
        if (r == c) {
          REQUIRE(off_slots[i] < 0);
          CHECK(BlockPattern::diag_slot_node(off_slots[i]) == r);
        } else {
          REQUIRE(off_slots[i] >= 0);
          CHECK(row_of_block(off, off_slots[i]) == r);
          CHECK(off.col_idx()[off_slots[i]] == c);
        }
      }
    }
  }
}

TEST_CASE("mesh: patterns spanning many row buckets (thousands of nodes) match brute force") {
  // The build sorts couplings in buckets of 1024 rows; cross the boundaries many times.
  std::mt19937 rng(41);
  const int32_t n = 5000 + static_cast<int32_t>(rng() % 1000);
  std::vector<ElementSet> sets;
  sets.push_back(random_set("edges", 2, 9000, n - 3, rng));
  sets.push_back(random_set("tets", 4, 3000, n - 3, rng));
  sets.push_back(random_set("degenerate", 3, 500, n - 3, rng, /*distinct=*/false));
  const std::vector<const ElementSet*> ptrs{&sets[0], &sets[1], &sets[2]};
  for (Symmetry sym : {Symmetry::General, Symmetry::Upper}) {
    const bool upper = sym == Symmetry::Upper;
    CAPTURE(upper);
    const BlockPattern p = BlockPattern::build(n, ptrs, sym);
    check_structure(p);
    CHECK(pattern_set(p) == brute_pattern(n, ptrs, upper));
    for (size_t s = 0; s < sets.size(); ++s) {
      const ElementSet& set = sets[s];
      const int k = set.k;
      int64_t wrong = 0;
      for (int64_t e = 0; e < set.size(); ++e) {
        for (int a = 0; a < k; ++a) {
          for (int b = 0; b < k; ++b) {
            int64_t r = set.vertex(e, a), c = set.vertex(e, b);
            if (upper && c < r) std::swap(r, c);
            const int64_t slot = p.element_slots(s)[(e * k + a) * k + b];
            wrong += slot != p.find(r, c) || slot < 0;
          }
        }
      }
      CHECK(wrong == 0);
    }
  }
  for (const ElementSet& set : sets) {
    const Incidence inc = build_incidence(n, set);
    int64_t wrong = 0;
    std::vector<int> seen(set.conn.size(), 0);
    for (int64_t v = 0; v < n; ++v) {
      for (int64_t i = inc.ptr[v]; i < inc.ptr[v + 1]; ++i) {
        wrong += set.vertex(inc.element[i], inc.local_vertex[i]) != v;
        ++seen[inc.element[i] * set.k + inc.local_vertex[i]];
        if (i > inc.ptr[v]) {
          wrong += std::make_pair(inc.local_vertex[i - 1], inc.element[i - 1]) >=
                   std::make_pair(inc.local_vertex[i], inc.element[i]);
        }
      }
    }
    CHECK(wrong == 0);
    CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
  }
}

TEST_CASE("mesh: empty sets and isolated nodes give a diagonal-only pattern") {
  const ElementSet empty{"empty", 3, {}};
  const BlockPattern p = BlockPattern::build(5, {&empty});
  CHECK(p.n_blocks() == 5);
  for (int64_t r = 0; r < 5; ++r) CHECK(p.diag_index(r) == r);
  CHECK(p.element_slots(0).empty());
  const BlockPattern none = BlockPattern::build(0, {});
  CHECK(none.n_blocks() == 0);
  CHECK(none.row_ptr().size() == 1);
  CHECK(none.n_sets() == 0);
  CHECK(p.without_diagonal().n_blocks() == 0);
}

TEST_CASE("mesh: BlockPattern::build rejects bad sets naming them") {
  std::mt19937 rng(5);
  ElementSet tris = random_set("tris", 3, 100, 40, rng);
  tris.conn[3 * 61] = 40;
  const std::string m = mesh_error_of([&] { BlockPattern::build(40, {&tris}); });
  CHECK(m.find("'tris'") != std::string::npos);
  CHECK(m.find("element 61") != std::string::npos);
}

TEST_CASE("mesh: row_ptr32 narrows the row pointer") {
  const Mesh m = random_mesh(3);
  const BlockPattern p = BlockPattern::build(m.n_nodes, m.ptrs());
  const std::vector<int32_t> rp = p.row_ptr32();
  REQUIRE(rp.size() == p.row_ptr().size());
  CHECK(std::equal(rp.begin(), rp.end(), p.row_ptr().begin()));
}

TEST_CASE("mesh: Incidence lists every (element, local vertex) exactly once, side-major") {
  const Mesh m = random_mesh(21);
  for (const ElementSet& set : m.sets) {
    CAPTURE(set.name);
    const Incidence inc = build_incidence(m.n_nodes, set);
    REQUIRE(inc.n_nodes() == m.n_nodes);
    REQUIRE(inc.ptr.back() == static_cast<int64_t>(set.conn.size()));
    REQUIRE(inc.element.size() == set.conn.size());
    REQUIRE(inc.local_vertex.size() == set.conn.size());
    std::vector<int> seen(set.conn.size(), 0);
    for (int64_t n = 0; n < m.n_nodes; ++n) {
      for (int64_t i = inc.ptr[n]; i < inc.ptr[n + 1]; ++i) {
        const int64_t e = inc.element[i];
        const int a = inc.local_vertex[i];
        REQUIRE(e >= 0);
        REQUIRE(e < set.size());
        REQUIRE(a >= 0);
        REQUIRE(a < set.k);
        CHECK(set.vertex(e, a) == n);
        ++seen[e * set.k + a];
        if (i > inc.ptr[n]) {
          // Side-major: local vertex, then element (the deterministic summation order).
          const auto prev =
              std::make_pair(int(inc.local_vertex[i - 1]), int64_t(inc.element[i - 1]));
          CHECK(prev < std::make_pair(a, e));
        }
      }
    }
    CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
  }
  const Incidence empty = build_incidence(4, ElementSet{"empty", 2, {}});
  CHECK(empty.ptr == std::vector<int64_t>(5, 0));
}

TEST_CASE("mesh: an incidence's other nodes, offsets by local vertex and nodes with elements") {
  const Mesh m = random_mesh(22);
  for (const ElementSet& set : m.sets) {
    CAPTURE(set.name);
    const Incidence inc = build_incidence(m.n_nodes, set);
    const std::vector<int32_t> other = incidence_other_nodes(inc, set);
    REQUIRE(other.size() == inc.element.size() * (set.k - 1));
    const std::vector<uint32_t> side = incidence_side_offsets(inc, set);
    REQUIRE(side.size() == size_t(m.n_nodes) * set.k + 1);
    CHECK(side.back() == inc.element.size());
    int64_t wrong = 0;
    for (int64_t n = 0; n < m.n_nodes; ++n) {
      wrong += side[n * set.k] != inc.ptr[n];
      // Each entry's local vertex is the side its offsets put it on.
      for (int lv = 0; lv < set.k; ++lv) {
        for (int64_t i = side[n * set.k + lv]; i < side[n * set.k + lv + 1]; ++i) {
          wrong += inc.local_vertex[i] != lv;
          // Put the node back at its local vertex: the element's own row.
          for (int v = 0, o = 0; v < set.k; ++v) {
            const int32_t node = v == lv ? int32_t(n) : other[i * (set.k - 1) + o++];
            wrong += node != set.vertex(inc.element[i], v);
          }
        }
      }
    }
    CHECK(wrong == 0);
  }
  // An element with a node at two local vertices: the node has an entry on each side.
  const ElementSet twice{"twice", 3, {2, 0, 2, 1, 2, 0}};
  CHECK(incidence_side_offsets(build_incidence(3, twice), twice) ==
        std::vector<uint32_t>{0, 0, 1, 2, 3, 3, 3, 4, 5, 6});
  const ElementSet none{"none", 2, {}};
  CHECK(incidence_side_offsets(build_incidence(4, none), none) == std::vector<uint32_t>(9, 0));
  // Nodes 1 and 4 of 6 have no element; a set touching all of them lists none.
  const ElementSet part{"part", 2, {0, 2, 3, 5, 2, 0}};
  CHECK(nodes_with_elements(build_incidence(6, part)) == std::vector<int32_t>{0, 2, 3, 5});
  const ElementSet all{"all", 3, {0, 1, 2, 3, 4, 5, 2, 1, 0}};
  CHECK(nodes_with_elements(build_incidence(6, all)).empty());
  // A single-vertex set has no other nodes.
  const ElementSet pins{"pins", 1, {4, 1}};
  const Incidence pin_inc = build_incidence(6, pins);
  CHECK(incidence_other_nodes(pin_inc, pins).empty());
  CHECK(nodes_with_elements(pin_inc) == std::vector<int32_t>{1, 4});
}
