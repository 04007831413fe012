#include <doctest/doctest.h>

#include <random>
#include <string>

#include "backends/mesh/element_set.h"
#include "mesh_test_util.h"

using namespace dualjit::mesh;
using dualjit::mesh::test::mesh_error_of;
using dualjit::mesh::test::random_set;

namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("mesh: ElementSet size and valid random sets") {
  std::mt19937 rng(11);
  for (int k : {1, 2, 3, 4, 8}) {
    const ElementSet s = random_set("set" + std::to_string(k), k, 500, 64, rng);
    CHECK(s.size() == 500);
    CHECK(mesh_error_of([&] { validate(s, 64); }).empty());
  }
  const ElementSet empty{"empty", 4, {}};
  CHECK(empty.size() == 0);
  CHECK(mesh_error_of([&] { validate(empty, 0); }).empty());
  CHECK(mesh_error_of([&] { validate(empty, 10); }).empty());
}

TEST_CASE("mesh: validate names the set, the first offending element and value") {
  std::mt19937 rng(12);
  ElementSet s = random_set("wing_tets", 4, 1000, 200, rng);

  SUBCASE("negative index") {
    s.conn[4 * 417 + 2] = -7;
    s.conn[4 * 900 + 1] = -1;  // later offender is not the one reported
    const std::string m = mesh_error_of([&] { validate(s, 200); });
    CHECK(contains(m, "wing_tets"));
    CHECK(contains(m, "element 417"));
    CHECK(contains(m, "-7"));
    CHECK(contains(m, "negative"));
  }
  SUBCASE("index >= n_nodes") {
    s.conn[4 * 33 + 3] = 200;
    const std::string m = mesh_error_of([&] { validate(s, 200); });
    CHECK(contains(m, "wing_tets"));
    CHECK(contains(m, "element 33"));
    CHECK(contains(m, "200"));
    CHECK(contains(m, "n_nodes"));
    // The same set is fine over more nodes.
    CHECK(mesh_error_of([&] { validate(s, 201); }).empty());
  }
  SUBCASE("size not a multiple of k") {
    s.conn.push_back(3);
    s.conn.push_back(5);
    const std::string m = mesh_error_of([&] { validate(s, 200); });
    CHECK(contains(m, "wing_tets"));
    CHECK(contains(m, "multiple of k = 4"));
    CHECK(contains(m, "element 1000"));
  }
  SUBCASE("repeated vertex unless allowed") {
    s.conn[4 * 250 + 3] = s.conn[4 * 250 + 1];
    const std::string m = mesh_error_of([&] { validate(s, 200); });
    CHECK(contains(m, "wing_tets"));
    CHECK(contains(m, "element 250"));
    CHECK(contains(m, "repeats node " + std::to_string(s.conn[4 * 250 + 1])));
    CHECK(mesh_error_of([&] { validate(s, 200, /*allow_repeated_vertex=*/true); }).empty());
  }
  SUBCASE("non-positive k") {
    s.k = 0;
    const std::string m = mesh_error_of([&] { validate(s, 200); });
    CHECK(contains(m, "wing_tets"));
    CHECK(contains(m, "k = 0"));
  }
}
