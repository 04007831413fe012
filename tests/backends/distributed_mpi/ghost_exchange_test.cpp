// Ghost exchange over MPI: every ghost row gets its owner's values, and inconsistent ghost maps
// are raised on every rank (never a hang in a collective, never a silent wrong value).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "backends/distributed/mpi/ghost_exchange.h"
#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_problem.h"
#include "support/mpi_problems.h"

using namespace dualjit;

namespace {

constexpr int kB = 5;

}  // namespace

TEST_CASE("ghost exchange: every ghost row holds its owner's values after an update") {
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(7, 6, 5));
  const assembly::Problem p = cfd::roe_problem(em);
  const distributed::Communicator comm(MPI_COMM_WORLD);
  const distributed::NodePartition part = test::partition_for(p, comm.comm());
  const distributed::RankLayout layout =
      distributed::rank_layout(part, comm.rank(), distributed::element_sets(p));
  const std::vector<double> global = cfd::perturbed_state(em.n_nodes, {}, 0.3, 17);
  std::vector<double> local = distributed::local_values(layout, global, kB);
  for (int64_t k = layout.n_owned * kB; k < layout.n_local() * kB; ++k)
    local[k] = std::numeric_limits<double>::quiet_NaN();

  const distributed::GhostExchange x(comm, layout);
  CHECK(x.nodes_received() == layout.n_ghosts());
  CHECK(comm.sum(x.nodes_sent()) == comm.sum(x.nodes_received()));
  if (comm.size() == 1) CHECK(x.neighbours() == 0);
  if (comm.size() > 1) CHECK(x.neighbours() >= 1);
  x.update(local, kB);
  int64_t wrong = 0;
  for (int64_t i = 0; i < layout.n_local(); ++i)
    for (int k = 0; k < kB; ++k)
      wrong += local[i * kB + k] != global[int64_t(layout.global[i]) * kB + k];
  CHECK(wrong == 0);
  // A block of another width moves the same way.
  std::vector<double> one(layout.n_local(), -1.0);
  for (int64_t i = 0; i < layout.n_owned; ++i) one[i] = layout.global[i];
  x.update(one, 1);
  for (int64_t i = layout.n_owned; i < layout.n_local(); ++i) CHECK(one[i] == layout.global[i]);
  CHECK_THROWS_AS(x.update(one, kB), std::invalid_argument);
}

TEST_CASE("ghost exchange: inconsistent ghost maps are named on every rank") {
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(6, 5, 5));
  const assembly::Problem p = cfd::roe_problem(em);
  const distributed::Communicator comm(MPI_COMM_WORLD);
  const distributed::NodePartition part = test::partition_for(p, comm.comm());
  distributed::RankLayout layout =
      distributed::rank_layout(part, comm.rank(), distributed::element_sets(p));

  SUBCASE("a layout held by the wrong rank") {
    distributed::RankLayout wrong = layout;
    if (comm.rank() == 0) wrong.rank = comm.size();
    CHECK_THROWS_WITH_AS(distributed::GhostExchange(comm, wrong),
                         doctest::Contains("rank 0: holds the layout of rank"),
                         distributed::DistributedError);
  }
  if (comm.size() > 1) {
    SUBCASE("rank 0 asks a neighbour for a node the neighbour does not own") {
      // Rank 0's first ghost renamed to one of rank 0's own nodes, still said to be owned by
      // the neighbour: only the neighbour can see that it is asked for a node it lacks.
      int32_t asked = -1, owner = -1;
      if (comm.rank() == 0 && layout.n_ghosts() > 0) {
        asked = layout.global[0];
        owner = layout.ghost_owner[0];
        layout.global[layout.n_owned] = asked;
      }
      MPI_Bcast(&asked, 1, MPI_INT32_T, 0, comm.comm());
      MPI_Bcast(&owner, 1, MPI_INT32_T, 0, comm.comm());
      REQUIRE(asked >= 0);
      const std::string expected = "rank " + std::to_string(owner) +
                                   ": rank 0 asks it for global node " + std::to_string(asked);
      CHECK_THROWS_WITH_AS(distributed::GhostExchange(comm, layout),
                           doctest::Contains(expected.c_str()), distributed::DistributedError);
    }
  }
}
