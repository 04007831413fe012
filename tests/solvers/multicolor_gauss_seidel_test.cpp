// Multicoloured symmetric block Gauss-Seidel (solvers/multicolor_gauss_seidel.h) and the node
// colouring under it (solvers/node_coloring.h): colours are valid and deterministic, malformed
// or unsymmetric patterns are named, and the preconditioner is exactly the dense
// (D + U)^-1 D (D + L)^-1 of the colour-ordered matrix, one and two sweeps.
#include <doctest/doctest.h>

#include <Eigen/Dense>

#include "backends/mesh/export.h"
#include "block_systems.h"
#include "solvers/multicolor_gauss_seidel.h"
#include "solvers/node_coloring.h"
#include "solvers/solver_error.h"

using namespace dualjit;
using namespace dualjit::solvers;
using namespace dualjit::test;

TEST_CASE("node colouring: neighbours differ, every node once, ascending within a colour") {
  const mesh::BlockPattern p = grid_pattern(9, 7);
  const NodeColoring c = color_nodes(p.row_ptr(), p.col_idx());
  // Greedy in node order on a 4-neighbour grid: a checkerboard.
  CHECK(c.n_colors == 2);
  std::vector<int> color(p.n_nodes(), -1);
  for (int k = 0; k < c.n_colors; ++k) {
    for (int64_t s = c.color_ptr[k]; s < c.color_ptr[k + 1]; ++s) {
      CHECK(color[c.nodes[s]] == -1);
      color[c.nodes[s]] = k;
      if (s > c.color_ptr[k]) CHECK(c.nodes[s - 1] < c.nodes[s]);
    }
  }
  for (int64_t i = 0; i < p.n_nodes(); ++i) {
    REQUIRE(color[i] >= 0);
    for (int64_t k = p.row_ptr()[i]; k < p.row_ptr()[i + 1]; ++k)
      if (p.col_idx()[k] != i) CHECK(color[p.col_idx()[k]] != color[i]);
  }
  // A denser graph needs more colours: the 8-neighbour grid (a 2x2 clique in every cell).
  std::vector<int32_t> conn;
  for (int j = 0; j + 1 < 6; ++j)
    for (int i = 0; i + 1 < 6; ++i) {
      const int n = j * 6 + i;
      conn.insert(conn.end(), {n, n + 1, n, n + 6, n, n + 7, n + 1, n + 6});
    }
  const mesh::BlockPattern dense = edge_pattern(36, conn);
  CHECK(color_nodes(dense.row_ptr(), dense.col_idx()).n_colors == 4);
}

TEST_CASE("node colouring names bad rows, columns and an unsymmetric pattern") {
  const std::vector<int64_t> row_ptr = {0, 2, 3, 4};
  CHECK_THROWS_WITH_AS(color_nodes(row_ptr, std::vector<int32_t>{0, 1, 5, 2}),
                       doctest::Contains("row 1 has column 5"), SolverError);
  CHECK_THROWS_WITH_AS(
      color_nodes(std::vector<int64_t>{0, 2, 1, 4}, std::vector<int32_t>{0, 1, 1, 2}),
      doctest::Contains("row 1 has pointers"), SolverError);
  // 0 -> 1 stored, 1 -> 0 not, 2 -> 0: rows 0 and 1 would share nothing from row 1's side.
  CHECK_THROWS_WITH_AS(
      color_nodes(std::vector<int64_t>{0, 2, 3, 5}, std::vector<int32_t>{0, 1, 1, 0, 2}),
      doctest::Contains("not structurally symmetric"), SolverError);
}

TEST_CASE("multicoloured SGS is (D + U)^-1 D (D + L)^-1 of the colour-ordered matrix") {
  const int b = 5;
  const mesh::BlockPattern p = grid_pattern(6, 5);
  const mesh::BlockCsr<double> a = random_matrix(p, 0.6, 3.0, 41, b);
  const MulticolorGaussSeidel one(a), two(a, 2);
  const NodeColoring& c = one.coloring();
  // The permutation that orders nodes by colour: position of node i.
  const int64_t n = p.n_nodes();
  std::vector<int64_t> position(n);
  for (int64_t s = 0; s < n; ++s) position[c.nodes[s]] = s;
  const Eigen::MatrixXd dense = Eigen::MatrixXd(mesh::to_eigen(a));
  Eigen::MatrixXd pa(n * b, n * b);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      pa.block(position[i] * b, position[j] * b, b, b) = dense.block(i * b, j * b, b, b);
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(n * b, n * b), l = d, u = d;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      auto blk = pa.block(i * b, j * b, b, b);
      (i == j ? d : i > j ? l : u).block(i * b, j * b, b, b) = blk;
    }
  const Eigen::MatrixXd forward = (d + l).inverse(), backward = (d + u).inverse();
  const Eigen::MatrixXd m1 = backward * d * forward;
  // Two sweeps: z2 = z1 + M1 (r - A z1), the second symmetric sweep from z1.
  const Eigen::MatrixXd m2 = m1 + m1 * (Eigen::MatrixXd::Identity(n * b, n * b) - pa * m1);
  const std::vector<double> r = random_vector(n * b, 42);
  Eigen::VectorXd pr(n * b);
  for (int64_t i = 0; i < n; ++i)
    for (int k = 0; k < b; ++k) pr[position[i] * b + k] = r[i * b + k];
  for (int sweeps : {1, 2}) {
    CAPTURE(sweeps);
    std::vector<double> z(r.size());
    (sweeps == 1 ? one : two).apply(r, z);
    const Eigen::VectorXd expect = (sweeps == 1 ? m1 : m2) * pr;
    double worst = 0, scale = expect.cwiseAbs().maxCoeff();
    for (int64_t i = 0; i < n; ++i)
      for (int k = 0; k < b; ++k)
        worst = std::max(worst, std::abs(z[i * b + k] - expect[position[i] * b + k]));
    CHECK(worst <= 1e-12 * scale);
  }
  CHECK_THROWS_AS(MulticolorGaussSeidel(a, 0), SolverError);
  std::vector<double> small(3);
  CHECK_THROWS_WITH_AS(one.apply(small, small), doctest::Contains("150 DOFs"), SolverError);
}
