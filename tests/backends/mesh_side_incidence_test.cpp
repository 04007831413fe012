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

TEST_CASE("node blocks: ranges within the tile and node caps, every node or those with elements") {
  std::mt19937 rng(22);
  ElementSet set = random_set("edges", 2, 3000, 400, rng);
  // A hub: node 7 is vertex 0 of 150 extra elements, more than one tile.
  for (int i = 0; i < 150; ++i) set.conn.insert(set.conn.end(), {7, 8 + i});
  // Nodes 400..499 have no element.
  const SideIncidence inc = build_side_incidence(500, set, {});
  const auto degree = [&](int64_t v) {
    return inc.side_ptr(0)[v + 1] - inc.side_ptr(0)[v] + inc.side_ptr(1)[v + 1] -
           inc.side_ptr(1)[v];
  };
  for (bool every : {true, false}) {
    for (int tile : {32, 64}) {
      for (int max_nodes : {16, 32}) {
        CAPTURE(every);
        CAPTURE(tile);
        const auto blocks = node_blocks(inc, tile, max_nodes, every);
        REQUIRE(blocks.size() % 2 == 0);
        REQUIRE(blocks.size() >= 2);
        std::vector<int> covered(500, 0);
        for (size_t b = 0; b < blocks.size(); b += 2) {
          const int64_t first = blocks[b], last = blocks[b + 1];
          REQUIRE(last > first);
          if (b > 0) CHECK(first >= blocks[b - 1]);  // in node order, disjoint
          CHECK(last - first <= max_nodes);
          for (int64_t v = first; v < last; ++v) ++covered[v];
          if (!every) {
            CHECK(degree(first) > 0);
            CHECK(degree(last - 1) > 0);
          }
          if (last - first == 1) continue;  // a single node may exceed the tile
          for (int s = 0; s < 2; ++s) {
            const auto ptr = inc.side_ptr(s);
            CHECK(ptr[last] - ptr[first] <= tile);
          }
        }
        for (int64_t v = 0; v < 500; ++v) {
          // Every node once; without `every`, exactly the nodes with elements.
          CHECK(covered[v] == (every || degree(v) > 0 ? 1 : 0));
        }
        // The hub sits alone.
        bool hub_alone = false;
        for (size_t b = 0; b < blocks.size(); b += 2)
          hub_alone |= blocks[b] == 7 && blocks[b + 1] == 8;
        CHECK(hub_alone);
      }
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
  CHECK(node_blocks(empty, 64, 32, /*every_node=*/false).empty());
}
