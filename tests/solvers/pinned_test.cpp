// PinnedDofs: nodes and single DOFs, counts, zeroing, size checks and out-of-range errors.
#include <doctest/doctest.h>

#include "solvers/pinned.h"
#include "solvers/solver_error.h"

using namespace dualjit::solvers;

TEST_CASE("pinned DOFs: nodes and DOFs, zeroing, misuse named") {
  PinnedDofs p(4, 3);
  CHECK(p.empty());
  p.pin_node(2);
  p.pin_dof(1);
  p.pin_dof(7);  // already pinned with node 2
  CHECK(p.count() == 4);
  CHECK(p.n_dofs() == 12);
  std::vector<double> v(12);
  for (int i = 0; i < 12; ++i) v[i] = i + 1.0;
  p.zero(v);
  for (int i = 0; i < 12; ++i) CHECK(v[i] == ((i == 1 || (i >= 6 && i < 9)) ? 0.0 : i + 1.0));
  CHECK_THROWS_WITH_AS(p.pin_node(4), doctest::Contains("node 4 of 4 is out of range"),
                       SolverError);
  CHECK_THROWS_WITH_AS(p.pin_dof(-1), doctest::Contains("DOF -1 of 12"), SolverError);
  std::vector<double> w(9);
  CHECK_THROWS_WITH_AS(p.zero(w), doctest::Contains("pinned DOFs describe 12 DOFs"), SolverError);
  // Nothing pinned: any size goes.
  PinnedDofs none;
  none.zero(w);
  none.check_size(5, "test");
}
