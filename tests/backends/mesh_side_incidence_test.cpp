// Side incidence (node -> element per local vertex) and the node blocks over it.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "backends/mesh/side_incidence.h"
#include "mesh_test_util.h"

using namespace dualjit::mesh;
using dualjit::mesh::test::random_set;

TEST_CASE("side incidence: each (element, side) once, under its node, in element order") {
  std::mt19937 rng(21);
  for (int k : {1, 2, 3, 4}) {
    CAPTURE(k);
    const int32_t n_nodes = 97;
    // Repeated vertices allowed: each occurrence is its own entry.
    const ElementSet set = random_set("tris" + std::to_string(k), k, 700, n_nodes, rng, k != 3);
    const int64_t n = set.size();
    std::vector<int64_t> slots(n * k * k);
    std::uniform_int_distribution<int64_t> any(0, 1 << 20);
    for (auto& x : slots) x = any(rng);
    const SideIncidence inc = build_side_incidence(n_nodes, set, slots);
    REQUIRE(inc.element.size() == static_cast<size_t>(k * n));
    REQUIRE(inc.slot.size() == static_cast<size_t>(k * n * (k - 1)));
    for (int s = 0; s < k; ++s) {
      const auto ptr = inc.side_ptr(s);
      CHECK(ptr[0] == s * n);
      CHECK(ptr[n_nodes] == (s + 1) * n);
      std::vector<int> seen(n, 0);
      for (int32_t v = 0; v < n_nodes; ++v) {
        for (int64_t p = ptr[v]; p < ptr[v + 1]; ++p) {
          const int32_t e = inc.element[p];
          CHECK(set.vertex(e, s) == v);
          if (p > ptr[v]) CHECK(inc.element[p - 1] < e);
          ++seen[e];
          for (int t = 0, j = 0; t < k; ++t) {
            if (t == s) continue;
            CHECK(inc.slot[p * (k - 1) + j++] == slots[(e * k + t) * k + s]);
          }
        }
      }
      CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
    }
    // Without slots (residual only) nothing else changes.
    const SideIncidence bare = build_side_incidence(n_nodes, set, {});
    CHECK(bare.slot.empty());
    CHECK(bare.element == inc.element);
    CHECK(bare.ptr == inc.ptr);
  }
}

TEST_CASE("node blocks: cover every node in order, within the tile and node caps") {
  std::mt19937 rng(22);
  ElementSet set = random_set("edges", 2, 3000, 400, rng);
  // A hub: node 7 is vertex 0 of 150 extra elements, more than one tile.
  for (int i = 0; i < 150; ++i) set.conn.insert(set.conn.end(), {7, 8 + i});
  const SideIncidence inc = build_side_incidence(400, set, {});
  for (int tile : {32, 64}) {
    for (int max_nodes : {16, 32}) {
      const auto blocks = node_blocks(inc, tile, max_nodes);
      REQUIRE(blocks.size() >= 2);
      CHECK(blocks.front() == 0);
      CHECK(blocks.back() == 400);
      for (size_t b = 0; b + 1 < blocks.size(); ++b) {
        const int64_t first = blocks[b], last = blocks[b + 1];
        REQUIRE(last > first);
        CHECK(last - first <= max_nodes);
        if (last - first == 1) continue;  // a single node may exceed the tile
        for (int s = 0; s < 2; ++s) {
          const auto ptr = inc.side_ptr(s);
          CHECK(ptr[last] - ptr[first] <= tile);
        }
        // Greedy: the next node would not have fitted.
        if (last < 400 && last - first < max_nodes) {
          bool over = false;
          for (int s = 0; s < 2; ++s)
            over |= inc.side_ptr(s)[last + 1] - inc.side_ptr(s)[first] > tile;
          CHECK(over);
        }
      }
      // The hub sits alone.
      const auto hub = std::upper_bound(blocks.begin(), blocks.end(), 7) - 1;
      CHECK(*hub == 7);
      CHECK(*(hub + 1) == 8);
    }
  }
  CHECK_THROWS_AS(node_blocks(inc, 0, 4), MeshError);
}

TEST_CASE("side incidence: bad input names the set") {
  std::mt19937 rng(23);
  ElementSet set = random_set("faces", 3, 50, 20, rng);
  std::vector<int64_t> short_slots(10);
  CHECK_THROWS_WITH_AS(build_side_incidence(20, set, short_slots), doctest::Contains("'faces'"),
                       MeshError);
  set.conn[3 * 17 + 1] = 20;  // out of range
  CHECK_THROWS_WITH_AS(build_side_incidence(20, set, {}), doctest::Contains("'faces'"), MeshError);
  const SideIncidence empty = build_side_incidence(5, ElementSet{"none", 2, {}}, {});
  CHECK(node_blocks(empty, 64, 32) == std::vector<int64_t>{0, 5});
}
