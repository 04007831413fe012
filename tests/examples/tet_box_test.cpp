// The Neo-Hookean demo reuses cfd::box_tet_mesh (examples/cfd/tet_mesh.h) as its box of tets:
// its orientation is the one neo_hookean_params requires (det(x1 - x0, x2 - x0, x3 - x0) > 0),
// and the rest volumes it yields sum to the box's.
#include <doctest/doctest.h>

#include "examples/cfd/tet_mesh.h"
#include "examples/mesh_energy/neo_hookean.h"

using namespace dualjit;

TEST_SUITE("tet box") {
  TEST_CASE("box_tet_mesh fits neo_hookean_params: positive rest volumes summing to the box") {
    const cfd::TetMesh box = cfd::box_tet_mesh(3, 2, 4, 1.5, 1.0, 0.5);
    const std::vector<double> p = mesh_energy::neo_hookean_params(box.xyz, box.tets);
    REQUIRE(p.size() == size_t(box.n_tets() * 10));
    double volume = 0;
    for (int64_t t = 0; t < box.n_tets(); ++t) {
      CHECK(p[t * 10 + 9] > 0);
      CHECK(p[t * 10 + 9] == doctest::Approx(cfd::tet_signed_volume(box, t)).epsilon(1e-12));
      volume += p[t * 10 + 9];
    }
    CHECK(volume == doctest::Approx(0.75).epsilon(1e-12));
  }
}
