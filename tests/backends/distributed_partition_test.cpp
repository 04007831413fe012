// Node partitions (METIS) and ranks' shares of a problem: every node owned once, and the rows
// of its owned nodes that a rank assembles equal the global problem's, bit for bit; bad
// partitions and ghost maps are named.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/distributed/partition.h"
#include "backends/distributed/rank_problem.h"
#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_problem.h"
#include "examples/mesh_energy/cloth_energy.h"
#include "support/assembly.h"

using namespace dualjit;

namespace {

constexpr int kB = 5;

bool same_bits(const double* a, const double* b, size_t n) {
  return std::memcmp(a, b, n * sizeof(double)) == 0;
}

}  // namespace

TEST_CASE("METIS partitions a tet box: every node owned once, balanced, the same every time") {
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(7, 6, 5));
  const assembly::Problem p = cfd::roe_problem(em);
  for (int parts : {1, 2, 4, 7}) {
    CAPTURE(parts);
    const distributed::NodePartition a =
        distributed::partition_nodes(em.n_nodes, distributed::element_sets(p), parts);
    const distributed::NodePartition b =
        distributed::partition_nodes(em.n_nodes, distributed::element_sets(p), parts);
    CHECK(a.owner == b.owner);
    CHECK_NOTHROW(distributed::check_partition(a, em.n_nodes));
    const auto counts = a.owned_counts();
    const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
    CHECK(*hi <= 1.1 * double(em.n_nodes) / parts + 1);
    CHECK(*lo >= 0.85 * double(em.n_nodes) / parts);
  }
}

TEST_CASE("each rank's owned rows equal the global residual and Jacobian, 1, 2 and 4 ranks") {
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(6, 5, 5));
  assembly::Problem p = cfd::roe_problem(em);  // edges and far-field nodes
  const auto q = cfd::perturbed_state(em.n_nodes, {}, 0.2, 61);
  const auto r = test::serial(p).residual(q);
  const auto J = test::serial(p).jacobian_split<double>(q);
  const mesh::BlockPattern& off = p.off_pattern();
  for (int parts : {1, 2, 4}) {
    CAPTURE(parts);
    const distributed::NodePartition part =
        distributed::partition_nodes(em.n_nodes, distributed::element_sets(p), parts);
    std::vector<int> covered(em.n_nodes, 0);
    int64_t ghosts = 0;
    for (int rank = 0; rank < parts; ++rank) {
      CAPTURE(rank);
      distributed::RankProblem rp = distributed::rank_problem(p, part, rank);
      CHECK_NOTHROW(distributed::check_layout(rp.layout, part));
      ghosts += rp.layout.n_ghosts();
      if (parts == 1) CHECK(rp.layout.n_ghosts() == 0);
      const auto ql = distributed::local_values(rp.layout, q, kB);
      const auto rl = test::serial(rp.problem).residual(ql);
      const auto Jl = test::serial(rp.problem).jacobian_split<double>(ql);
      const mesh::BlockPattern& loff = rp.problem.off_pattern();
      for (int64_t i = 0; i < rp.layout.n_owned; ++i) {
        const int32_t g = rp.layout.global[i];
        ++covered[g];
        CHECK(same_bits(&rl[i * kB], &r[g * kB], kB));
        CHECK(same_bits(Jl.diag_block(i), J.diag_block(g), kB * kB));
        // The same couplings as the global row, each block bit for bit.
        REQUIRE(loff.row_ptr()[i + 1] - loff.row_ptr()[i] ==
                off.row_ptr()[g + 1] - off.row_ptr()[g]);
        for (int64_t k = loff.row_ptr()[i]; k < loff.row_ptr()[i + 1]; ++k) {
          const int64_t gk = off.find(g, rp.layout.global[loff.col_idx()[k]]);
          REQUIRE(gk >= 0);
          CHECK(same_bits(Jl.off.block(k), J.off.block(gk), kB * kB));
        }
      }
    }
    CHECK(std::all_of(covered.begin(), covered.end(), [](int c) { return c == 1; }));
    if (parts > 1) CHECK(ghosts > 0);
  }
}

TEST_CASE("the ranks' energy shares hold each element once and sum to the global energy") {
  const mesh_energy::ClothGrid grid = mesh_energy::cloth_grid(9);
  std::vector<double> x = grid.mesh.x;
  for (size_t k = 0; k < x.size(); ++k) x[k] += 0.01 * std::sin(1.7 * double(k));  // off rest
  assembly::Problem p = mesh_energy::cloth_problem(grid, grid.mesh.x);
  const double global = test::serial(p).energy(x);
  REQUIRE(global > 0);
  for (int parts : {1, 2, 4, 7}) {
    CAPTURE(parts);
    const distributed::NodePartition part =
        distributed::partition_nodes(p.n_nodes(), distributed::element_sets(p), parts);
    double sum = 0;
    std::vector<int64_t> elements(p.n_terms(), 0);
    for (int rank = 0; rank < parts; ++rank) {
      const distributed::RankProblem rp = distributed::rank_problem(p, part, rank);
      assembly::Problem share = distributed::energy_share(rp);
      REQUIRE(share.n_terms() == p.n_terms());
      CHECK(share.n_nodes() == rp.layout.n_local());
      for (size_t t = 0; t < p.n_terms(); ++t) {
        elements[t] += share.term(t).elements.size();
        for (int64_t e = 0; e < share.term(t).elements.size(); ++e)
          CHECK(share.term(t).elements.vertex(e, 0) < rp.layout.n_owned);
      }
      sum += test::serial(share).energy(distributed::local_values(rp.layout, x, 3));
    }
    for (size_t t = 0; t < p.n_terms(); ++t) CHECK(elements[t] == p.term(t).elements.size());
    CHECK(std::abs(sum - global) <= 1e-13 * std::abs(global));
  }
}

TEST_CASE("bad partitions and inconsistent ghost maps are refused, naming the node or rank") {
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(3, 3, 3));
  const assembly::Problem p = cfd::roe_problem(em);
  CHECK_THROWS_WITH_AS(distributed::partition_nodes(em.n_nodes, distributed::element_sets(p), 0),
                       doctest::Contains("0 parts"), mesh::MeshError);
  CHECK_THROWS_WITH_AS(
      distributed::partition_nodes(em.n_nodes, distributed::element_sets(p), int(em.n_nodes) + 1),
      doctest::Contains("parts for"), mesh::MeshError);
  distributed::NodePartition bad =
      distributed::partition_nodes(em.n_nodes, distributed::element_sets(p), 2);
  bad.owner[5] = 2;
  CHECK_THROWS_WITH_AS(distributed::check_partition(bad, em.n_nodes),
                       doctest::Contains("node 5 has owner 2"), mesh::MeshError);
  bad.owner.assign(em.n_nodes, 0);
  CHECK_THROWS_WITH_AS(distributed::check_partition(bad, em.n_nodes),
                       doctest::Contains("rank 1 owns no node"), mesh::MeshError);

  const distributed::NodePartition part =
      distributed::partition_nodes(em.n_nodes, distributed::element_sets(p), 2);
  const distributed::RankLayout good =
      distributed::rank_layout(part, 0, distributed::element_sets(p));
  REQUIRE(good.n_ghosts() > 0);
  distributed::RankLayout l = good;
  l.ghost_owner[0] = 0;  // a ghost claimed by the rank itself
  CHECK_THROWS_WITH_AS(distributed::check_layout(l, part),
                       doctest::Contains("ghost of the rank that owns it"), mesh::MeshError);
  l = good;
  l.global[good.n_owned] = good.global[0];  // an owned node repeated as a ghost
  CHECK_THROWS_WITH_AS(distributed::check_layout(l, part), doctest::Contains("appears twice"),
                       mesh::MeshError);
  l = good;
  l.global.erase(l.global.begin());  // an owned node missing
  --l.n_owned;
  CHECK_THROWS_WITH_AS(distributed::check_layout(l, part), doctest::Contains("lacks it"),
                       mesh::MeshError);
  CHECK_THROWS_WITH_AS(distributed::rank_layout(part, 2, distributed::element_sets(p)),
                       doctest::Contains("rank 2 of a partition in 2 parts"), mesh::MeshError);
}
