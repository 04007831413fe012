#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "backends/mesh/reorder.h"
#include "mesh_test_util.h"

using namespace dualjit::mesh;
using dualjit::mesh::test::brute_pattern;
using dualjit::mesh::test::grid_triangles;
using dualjit::mesh::test::mesh_error_of;
using dualjit::mesh::test::random_set;

namespace {

bool is_bijection(const std::vector<int32_t>& p) {
  std::vector<int32_t> s = p;
  std::sort(s.begin(), s.end());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != static_cast<int32_t>(i)) return false;
  }
  return true;
}

std::vector<int32_t> random_permutation(int32_t n, std::mt19937& rng) {
  std::vector<int32_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}

}  // namespace

TEST_CASE("mesh: RCM on a shuffled 2D grid is a bijection and cuts the bandwidth") {
  std::mt19937 rng(31);
  const int nx = 70, ny = 50;
  const int32_t n = nx * ny;
  const ElementSet shuffled = renumbered(grid_triangles(nx, ny), random_permutation(n, rng));
  const int64_t bw_shuffled = bandwidth(BlockPattern::build(n, {&shuffled}));

  const std::vector<int32_t> new_of_old = reverse_cuthill_mckee(n, {&shuffled});
  REQUIRE(new_of_old.size() == static_cast<size_t>(n));
  CHECK(is_bijection(new_of_old));
  const ElementSet ordered = renumbered(shuffled, new_of_old);
  const BlockPattern p = BlockPattern::build(n, {&ordered});
  const int64_t bw = bandwidth(p);
  MESSAGE("bandwidth shuffled " << bw_shuffled << " -> RCM " << bw);
  CHECK(bw_shuffled > 5 * bw);
  CHECK(bw <= 2 * std::min(nx, ny) + 2);  // close to the natural grid bandwidth

  // The renumbered pattern is the old one with both indices mapped.
  std::set<std::pair<int64_t, int64_t>> mapped;
  for (auto [r, c] : brute_pattern(n, {&shuffled}, false)) {
    mapped.insert({new_of_old[r], new_of_old[c]});
  }
  CHECK(brute_pattern(n, {&ordered}, false) == mapped);
}

TEST_CASE("mesh: RCM handles several components, isolated nodes and several sets") {
  std::mt19937 rng(32);
  const int32_t n = 600;
  ElementSet a = random_set("a", 3, 80, 200, rng);  // nodes [0, 200)
  ElementSet b = random_set("b", 2, 150, 250, rng);
  for (int32_t& v : b.conn) v += 300;  // nodes [300, 550); the rest isolated
  const ElementSet empty{"empty", 4, {}};
  const std::vector<int32_t> p = reverse_cuthill_mckee(n, {&a, &b, &empty});
  CHECK(is_bijection(p));
  CHECK(reverse_cuthill_mckee(n, {&a, &b, &empty}) == p);  // deterministic
  CHECK(reverse_cuthill_mckee(0, {}).empty());
  CHECK(is_bijection(reverse_cuthill_mckee(7, {&empty})));
}

TEST_CASE("mesh: permute_rows, inverse_permutation and renumbered agree") {
  std::mt19937 rng(33);
  const int32_t n = 300;
  const int width = 5;
  const std::vector<int32_t> new_of_old = random_permutation(n, rng);
  std::vector<double> field(n * width);
  std::iota(field.begin(), field.end(), 0.0);
  const std::vector<double> moved = permute_rows(field, width, new_of_old);
  for (int32_t i = 0; i < n; ++i) {
    for (int j = 0; j < width; ++j) CHECK(moved[new_of_old[i] * width + j] == field[i * width + j]);
  }
  const std::vector<int32_t> old_of_new = inverse_permutation(new_of_old);
  CHECK(permute_rows(moved, width, old_of_new) == field);

  const ElementSet tets = random_set("tets", 4, 100, n, rng);
  const ElementSet moved_tets = renumbered(tets, new_of_old);
  CHECK(moved_tets.name == "tets");
  CHECK(moved_tets.k == 4);
  CHECK(renumbered(moved_tets, old_of_new).conn == tets.conn);

  std::vector<int32_t> broken = new_of_old;
  broken[10] = broken[11];
  CHECK(mesh_error_of([&] { inverse_permutation(broken); }).find("entry 11") != std::string::npos);
  CHECK_FALSE(mesh_error_of([&] { permute_rows(field, width + 1, new_of_old); }).empty());
  const std::string msg = mesh_error_of([&] { renumbered(tets, std::vector<int32_t>{0, 1, 2}); });
  CHECK(msg.find("'tets'") != std::string::npos);
  CHECK(msg.find("element 0") != std::string::npos);
}

TEST_CASE("mesh: bandwidth of a pattern") {
  ElementSet e{"edges", 2, {0, 5, 2, 3}};
  CHECK(bandwidth(BlockPattern::build(8, {&e})) == 5);
  CHECK(bandwidth(BlockPattern::build(8, {&e}, Symmetry::Upper)) == 5);
  const ElementSet none{"none", 2, {}};
  CHECK(bandwidth(BlockPattern::build(8, {&none})) == 0);
}
