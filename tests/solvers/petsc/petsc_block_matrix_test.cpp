// The distributed Jacobian, Hessian, residual and gradient handed to PETSc (MATMPIBAIJ, Vec) are
// the one-process ones, bit for bit, on any number of ranks; the preallocation is exact.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "backends/distributed/solver_numbering.h"
#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_problem.h"
#include "examples/mesh_energy/cloth_energy.h"
#include "solvers/bsr_multiply.h"
#include "solvers/petsc/petsc_block_matrix.h"
#include "solvers/petsc/petsc_block_vector.h"
#include "support/assembly.h"
#include "support/mpi_problems.h"

using namespace dualjit;

namespace {

struct Shares {
  distributed::NodePartition part;
  distributed::SolverNumbering numbering;
  distributed::RankProblem rank;
  std::vector<int64_t> numbers;
};

Shares shares_of(const assembly::Problem& p, MPI_Comm comm) {
  distributed::NodePartition part = test::partition_for(p, comm);
  distributed::SolverNumbering numbering = distributed::solver_numbering(part);
  distributed::RankProblem rank = distributed::rank_problem(p, part, test::comm_rank(comm));
  std::vector<int64_t> numbers = distributed::local_solver_numbers(rank.layout, numbering);
  return {std::move(part), std::move(numbering), std::move(rank), std::move(numbers)};
}

// Every owned row of the PETSc matrix against the global block CSR matrix: the same blocks,
// bit for bit, and nothing else stored.
int64_t mismatches(const petsc::PetscBlockMatrix& m, const Shares& s,
                   const mesh::BlockCsr<double>& global) {
  const int b = m.block();
  const mesh::BlockPattern& gp = *global.pattern;
  int64_t bad = 0;
  for (int64_t i = 0; i < s.rank.layout.n_owned; ++i) {
    const int32_t g = s.rank.layout.global[i];
    for (int r = 0; r < b; ++r) {
      const PetscInt row = static_cast<PetscInt>(s.numbers[i] * b + r);
      PetscInt ncols = 0;
      const PetscInt* cols = nullptr;
      const PetscScalar* vals = nullptr;
      MatGetRow(m.mat(), row, &ncols, &cols, &vals);
      bad += ncols != (gp.row_ptr()[g + 1] - gp.row_ptr()[g]) * b;
      for (int64_t slot = gp.row_ptr()[g]; slot < gp.row_ptr()[g + 1]; ++slot) {
        const int64_t col = s.numbering.of_node[gp.col_idx()[slot]];
        for (int c = 0; c < b; ++c) {
          const PetscInt want = static_cast<PetscInt>(col * b + c);
          const PetscInt* at = std::find(cols, cols + ncols, want);
          bad += at == cols + ncols || vals[at - cols] != global.block(slot)[r * b + c];
        }
      }
      MatRestoreRow(m.mat(), row, &ncols, &cols, &vals);
    }
  }
  return bad;
}

int64_t vector_mismatches(const petsc::PetscBlockVector& v, const Shares& s,
                          const std::vector<double>& global, int b) {
  std::vector<double> got(s.rank.layout.n_local() * b, 0.0);
  v.get(got);
  int64_t bad = 0;
  for (int64_t i = 0; i < s.rank.layout.n_owned; ++i)
    for (int k = 0; k < b; ++k)
      bad += got[i * b + k] != global[int64_t(s.rank.layout.global[i]) * b + k];
  return bad;
}

}  // namespace

TEST_CASE("PETSc: the Roe residual and flux Jacobian of the ranks are the one-process ones") {
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(7, 6, 5));
  assembly::Problem p = cfd::roe_problem(em);  // edges and far-field nodes
  const auto q = cfd::perturbed_state(em.n_nodes, {}, 0.2, 29);
  // The residual by a deterministic strategy (each node's rows summed by one thread in a fixed
  // order): bit-identical whatever the threads; the default's atomics are not.
  assembly::FusedOptions deterministic;
  deterministic.strategy = "gather-by-column";
  assembly::Assembler whole(p, test::on_cpu(deterministic));
  const std::vector<double> r = whole.residual(q);
  const mesh::BlockCsr<double> J = whole.jacobian(q);

  Shares s = shares_of(p, MPI_COMM_WORLD);
  assembly::Assembler mine(s.rank.problem, test::on_cpu(deterministic));
  const auto ql = distributed::local_values(s.rank.layout, q, 5);
  petsc::PetscBlockMatrix A(MPI_COMM_WORLD, s.rank.problem.pattern(), s.numbers,
                            s.rank.layout.n_owned, 5, em.n_nodes);
  A.set(mine.jacobian(ql));
  CHECK(mismatches(A, s, J) == 0);
  MatInfo info;
  MatGetInfo(A.mat(), MAT_GLOBAL_SUM, &info);
  CHECK(info.nz_used == double(p.pattern().n_blocks() * 25));
  CHECK(info.nz_allocated == info.nz_used);  // preallocated exactly

  petsc::PetscBlockVector R(MPI_COMM_WORLD, s.rank.layout.n_owned, 5);
  R.set(mine.residual(ql));
  CHECK(vector_mismatches(R, s, r, 5) == 0);

  // A second assembly into the same matrix replaces the values.
  const auto q2 = cfd::perturbed_state(em.n_nodes, {}, 0.2, 30);
  A.set(mine.jacobian(distributed::local_values(s.rank.layout, q2, 5)));
  CHECK(mismatches(A, s, whole.jacobian(q2)) == 0);

  // The distributed product equals the one-process one to round-off.
  std::vector<double> x(em.n_nodes * 5), y(em.n_nodes * 5);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& v : x) v = u(rng);
  const mesh::BlockCsr<double> J2 = whole.jacobian(q2);
  solvers::multiply(J2, x, y);
  petsc::PetscBlockVector X(MPI_COMM_WORLD, s.rank.layout.n_owned, 5);
  petsc::PetscBlockVector Y(MPI_COMM_WORLD, s.rank.layout.n_owned, 5);
  X.set(distributed::local_values(s.rank.layout, x, 5));
  MatMult(A.mat(), X.vec(), Y.vec());
  std::vector<double> got(s.rank.layout.n_local() * 5);
  Y.get(got);
  double worst = 0;
  for (int64_t i = 0; i < s.rank.layout.n_owned; ++i)
    for (int k = 0; k < 5; ++k)
      worst =
          std::max(worst, std::abs(got[i * 5 + k] - y[int64_t(s.rank.layout.global[i]) * 5 + k]) /
                              (1 + std::abs(y[int64_t(s.rank.layout.global[i]) * 5 + k])));
  CHECK(worst < 1e-13);
}

TEST_CASE("PETSc: the cloth gradient and Hessian of the ranks are the one-process ones") {
  const mesh_energy::ClothGrid g = mesh_energy::cloth_grid(12);
  std::vector<double> xhat = g.mesh.x;
  for (size_t k = 1; k < xhat.size(); k += 3) xhat[k] -= 0.01;
  assembly::Problem p = mesh_energy::cloth_problem(g, xhat);
  std::vector<double> x = g.mesh.x;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-0.02, 0.02);
  for (double& v : x) v += u(rng);
  assembly::Assembler whole(p, test::on_cpu());
  const std::vector<double> grad = whole.gradient(x);
  const mesh::BlockCsr<double> H = whole.hessian(x);

  Shares s = shares_of(p, MPI_COMM_WORLD);
  assembly::Assembler mine(s.rank.problem, test::on_cpu());
  const auto xl = distributed::local_values(s.rank.layout, x, 3);
  petsc::PetscBlockMatrix A(MPI_COMM_WORLD, s.rank.problem.pattern(), s.numbers,
                            s.rank.layout.n_owned, 3, p.n_nodes());
  A.set(mine.hessian(xl));
  CHECK(mismatches(A, s, H) == 0);
  petsc::PetscBlockVector G(MPI_COMM_WORLD, s.rank.layout.n_owned, 3);
  G.set(mine.gradient(xl));
  CHECK(vector_mismatches(G, s, grad, 3) == 0);
}

TEST_CASE(
    "PETSc: a matrix over a pattern without diagonal or an owned number out of place is refused") {
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(3, 3, 3));
  assembly::Problem p = cfd::roe_problem(em);
  Shares s = shares_of(p, MPI_COMM_WORLD);
  const mesh::BlockPattern off = s.rank.problem.pattern().without_diagonal();
  CHECK_THROWS_AS(
      petsc::PetscBlockMatrix(MPI_COMM_SELF, off, s.numbers, s.rank.layout.n_owned, 5, em.n_nodes),
      std::invalid_argument);
  std::vector<int64_t> shuffled = s.numbers;
  if (s.rank.layout.n_owned >= 2) std::swap(shuffled[0], shuffled[1]);
  CHECK_THROWS_WITH_AS(petsc::PetscBlockMatrix(MPI_COMM_SELF, s.rank.problem.pattern(), shuffled,
                                               s.rank.layout.n_owned, 5, em.n_nodes),
                       doctest::Contains("owned row 1"), std::invalid_argument);
}
