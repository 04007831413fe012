#include "examples/distributed/petsc_steady.h"

#include <petscksp.h>

#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>

#include "backends/distributed/mpi/ghost_exchange.h"
#include "backends/distributed/partition.h"
#include "backends/distributed/rank_problem.h"
#include "backends/distributed/solver_numbering.h"
#include "examples/cfd/flow_state.h"
#include "examples/cfd/steady_engine.h"
#include "solvers/petsc/petsc_block_matrix.h"
#include "solvers/petsc/petsc_block_vector.h"
#include "solvers/petsc/petsc_check.h"
#include "solvers/petsc/petsc_device_operator.h"
#include "solvers/stopwatch.h"

namespace dualjit::cfd {
namespace {

constexpr int kB = 5;
using petsc::check_petsc;

// The edge data a rank's local time steps need: the edges with an owned vertex (all of an
// owned node's edges), the volumes and boundary areas of its local nodes.
EdgeMesh rank_edge_mesh(const EdgeMesh& em, const distributed::RankLayout& layout,
                        const distributed::NodePartition& part) {
  std::vector<int32_t> local_of(em.n_nodes, -1);
  for (int64_t i = 0; i < layout.n_local(); ++i) local_of[layout.global[i]] = int32_t(i);
  EdgeMesh out;
  out.n_nodes = layout.n_local();
  for (int64_t e = 0; e < em.n_edges(); ++e) {
    const int32_t a = em.edges[2 * e], b = em.edges[2 * e + 1];
    if (part.owner[a] != layout.rank && part.owner[b] != layout.rank) continue;
    out.edges.insert(out.edges.end(), {local_of[a], local_of[b]});
    out.area.insert(out.area.end(), &em.area[3 * e], &em.area[3 * e] + 3);
  }
  out.node_volume.resize(out.n_nodes);
  out.bnode_area.resize(3 * out.n_nodes);
  for (int64_t i = 0; i < out.n_nodes; ++i) {
    out.node_volume[i] = em.node_volume[layout.global[i]];
    std::copy_n(&em.bnode_area[3 * int64_t(layout.global[i])], 3, &out.bnode_area[3 * i]);
  }
  return out;
}

class PetscSteadyEngine final : public SteadyEngine {
 public:
  PetscSteadyEngine(MPI_Comm comm, const assembly::Problem& global, const EdgeMesh& em,
                    double gamma, const std::vector<double>& q, const PetscSteadyOptions& options)
      : comm_(comm), gamma_(gamma), options_(options) {
    // Each rank's own work first, its failures raised on every rank before any collective.
    distributed::NodePartition part;
    comm_.run_on_all([&] {
      part = distributed::partition_nodes(global.n_nodes(), distributed::element_sets(global),
                                          comm_.size());
      rank_ = std::make_unique<distributed::RankProblem>(
          distributed::rank_problem(global, part, comm_.rank()));
      numbers_ =
          distributed::local_solver_numbers(rank_->layout, distributed::solver_numbering(part));
      em_ = rank_edge_mesh(em, rank_->layout, part);
      assembler_ = std::make_unique<assembly::Assembler>(rank_->problem, options_.assembler);
      q_ = distributed::local_values(rank_->layout, q, kB);
      r_ = assembler_->residual(q_);
    });
    const distributed::RankLayout& layout = rank_->layout;
    ghosts_.emplace(comm_, layout);
    norm_ = owned_norm(r_);
    if (options_.device_linear_algebra && assembler_->backend() == assembly::Backend::Cuda) {
      if (options_.steady.preconditioner == SteadyPreconditioner::block_ilu0)
        throw std::invalid_argument(
            "solve_steady_petsc: block_ilu0 has no GPU form (sequential set-up and solves); "
            "block_jacobi or multicolor_sgs, or device_linear_algebra off");
      device_ = std::make_unique<petsc::PetscDeviceOperator>(
          comm, *ghosts_, layout.n_owned, layout.n_local(), kB, global.n_nodes());
    } else {
      matrix_ = std::make_unique<petsc::PetscBlockMatrix>(comm, rank_->problem.pattern(), numbers_,
                                                          layout.n_owned, kB, global.n_nodes());
    }
    b_ = std::make_unique<petsc::PetscBlockVector>(comm, layout.n_owned, kB);
    x_ = std::make_unique<petsc::PetscBlockVector>(comm, layout.n_owned, kB);
    make_ksp();
  }

  ~PetscSteadyEngine() override { KSPDestroy(&ksp_); }

  double residual_norm() override { return norm_; }

  bool implicit_step(double cfl, SteadyIteration& h) override {
    const int64_t n_owned = rank_->layout.n_owned;
    solvers::Stopwatch assembly;
    std::optional<mesh::BlockCsr<double>> a;
    comm_.run_on_all([&] {
      const std::vector<double> dt = local_time_steps(em_, q_, gamma_);
      a = assembler_->jacobian(q_);
      for (int64_t i = 0; i < n_owned; ++i) {
        double* d = a->block(a->pattern->diag_index(i));
        const double shift = em_.node_volume[i] / (cfl * dt[i]);
        for (int k = 0; k < kB; ++k) d[k * kB + k] += shift;
      }
    });
    h.assembly_seconds = assembly.seconds();

    solvers::Stopwatch setup;
    if (device_) {
      // The upload and the preconditioner's set-up (inverses, colour-ordered copy).
      comm_.run_on_all([&] { device_->set(*a, device_preconditioner(), sweeps()); });
      check_petsc(KSPSetOperators(ksp_, device_->mat(), device_->mat()), "KSPSetOperators");
    } else {
      matrix_->set(*a);
      check_petsc(KSPSetOperators(ksp_, matrix_->mat(), matrix_->mat()), "KSPSetOperators");
    }
    check_petsc(KSPSetTolerances(ksp_, h.linear_rtol, 0.0, PETSC_DEFAULT,
                                 options_.steady.linear.max_iterations),
                "KSPSetTolerances");
    check_petsc(KSPSetUp(ksp_), "KSPSetUp");
    // Block Jacobi factors its blocks (ILU(0)) here, not in KSPSetUp: timed as set-up.
    check_petsc(KSPSetUpOnBlocks(ksp_), "KSPSetUpOnBlocks");
    h.preconditioner_seconds = setup.seconds();

    solvers::Stopwatch krylov;
    b_->set(r_, -1.0);
    check_petsc(VecZeroEntries(x_->vec()), "VecZeroEntries");
    check_petsc(KSPSolve(ksp_, b_->vec(), x_->vec()), "KSPSolve");
    PetscInt its = 0;
    PetscReal rnorm = 0, bnorm = 0;
    check_petsc(KSPGetIterationNumber(ksp_, &its), "KSPGetIterationNumber");
    check_petsc(KSPGetResidualNorm(ksp_, &rnorm), "KSPGetResidualNorm");
    check_petsc(VecNorm(b_->vec(), NORM_2, &bnorm), "VecNorm");
    KSPConvergedReason reason;
    check_petsc(KSPGetConvergedReason(ksp_, &reason), "KSPGetConvergedReason");
    if (reason == KSP_DIVERGED_PC_FAILED || reason == KSP_DIVERGED_NANORINF)
      throw std::runtime_error("solve_steady_petsc: KSP failed at pseudo-time step " +
                               std::to_string(h.iteration) + ": " + KSPConvergedReasons[reason]);
    h.linear_iterations = static_cast<int>(its);
    h.linear_residual = bnorm > 0 ? rnorm / bnorm : 0;
    std::vector<double> dq(q_.size(), 0.0);
    x_->get(dq);
    h.krylov_seconds = krylov.seconds();

    std::vector<double> q_old = q_;
    for (int64_t k = 0; k < n_owned * kB; ++k) q_[k] += dq[k];
    ghosts_->update(q_, kB);
    if (comm_.all(physical())) {
      std::vector<double> r;
      comm_.run_on_all([&] { r = assembler_->residual(q_); });
      const double norm = owned_norm(r);
      if (std::isfinite(norm)) {
        r_ = std::move(r);
        norm_ = norm;
        return true;
      }
    }
    q_ = std::move(q_old);
    return false;
  }

  void explicit_step(double cfl, bool measure) override {
    comm_.run_on_all([&] {
      const std::vector<double> dt = local_time_steps(em_, q_, gamma_);
      for (int64_t i = 0; i < rank_->layout.n_owned; ++i) {
        const double f = cfl * dt[i] / em_.node_volume[i];
        for (int k = 0; k < kB; ++k) q_[i * kB + k] -= f * r_[i * kB + k];
      }
    });
    ghosts_->update(q_, kB);
    comm_.run_on_all([&] { r_ = assembler_->residual(q_); });
    if (measure) norm_ = owned_norm(r_);
  }

  // The owned rows of every rank into q (n_nodes x 5), on every rank.
  void read_state(std::vector<double>& q) override {
    std::vector<double> mine(q.size(), 0.0);
    const distributed::RankLayout& layout = rank_->layout;
    for (int64_t i = 0; i < layout.n_owned; ++i)
      std::copy_n(&q_[i * kB], kB, &mine[int64_t(layout.global[i]) * kB]);
    distributed::check_mpi(MPI_Allreduce(mine.data(), q.data(), static_cast<int>(q.size()),
                                         MPI_DOUBLE, MPI_SUM, comm_.comm()),
                           "MPI_Allreduce");
  }

 private:
  double owned_norm(const std::vector<double>& r) const {
    double s = 0;
    for (int64_t k = 0; k < rank_->layout.n_owned * kB; ++k) s += r[k] * r[k];
    return std::sqrt(comm_.sum(s));
  }

  // Whether every owned node's density and pressure are positive and finite.
  bool physical() const {
    for (int64_t i = 0; i < rank_->layout.n_owned; ++i) {
      const double* s = &q_[i * kB];
      const double p = pressure(s, gamma_);
      if (!(s[0] > 0) || !(p > 0) || !std::isfinite(s[0]) || !std::isfinite(p)) return false;
    }
    return true;
  }

  void make_ksp() {
    const SteadyOptions& o = options_.steady;
    check_petsc(KSPCreate(comm_.comm(), &ksp_), "KSPCreate");
    check_petsc(KSPSetType(ksp_, KSPGMRES), "KSPSetType");
    check_petsc(KSPGMRESSetRestart(ksp_, o.linear.restart), "KSPGMRESSetRestart");
    // Right preconditioning: GMRES minimises the true residual, whose norm the tolerances read.
    check_petsc(KSPSetPCSide(ksp_, PC_RIGHT), "KSPSetPCSide");
    if (device_) {
      device_->use_in(ksp_);
      if (options_.options_database) check_petsc(KSPSetFromOptions(ksp_), "KSPSetFromOptions");
      return;
    }
    PC pc;
    check_petsc(KSPGetPC(ksp_, &pc), "KSPGetPC");
    switch (o.preconditioner) {
      case SteadyPreconditioner::block_jacobi:
        check_petsc(PCSetType(pc, PCPBJACOBI), "PCSetType");
        break;
      case SteadyPreconditioner::automatic:
      case SteadyPreconditioner::block_ilu0:
        check_petsc(PCSetType(pc, PCBJACOBI), "PCSetType");
        break;
      case SteadyPreconditioner::multicolor_sgs:
        check_petsc(PCSetType(pc, PCSOR), "PCSetType");
        check_petsc(PCSORSetSymmetric(pc, SOR_LOCAL_SYMMETRIC_SWEEP), "PCSORSetSymmetric");
        check_petsc(PCSORSetIterations(pc, o.gauss_seidel_sweeps, 1), "PCSORSetIterations");
        break;
    }
    if (options_.options_database) check_petsc(KSPSetFromOptions(ksp_), "KSPSetFromOptions");
  }

  solvers::DevicePreconditioner device_preconditioner() const {
    return options_.steady.preconditioner == SteadyPreconditioner::block_jacobi
               ? solvers::DevicePreconditioner::block_jacobi
               : solvers::DevicePreconditioner::multicolor_sgs;
  }
  int sweeps() const { return options_.steady.gauss_seidel_sweeps; }

  distributed::Communicator comm_;
  double gamma_;
  PetscSteadyOptions options_;
  std::unique_ptr<distributed::RankProblem> rank_;
  std::vector<int64_t> numbers_;
  EdgeMesh em_;
  std::optional<distributed::GhostExchange> ghosts_;
  std::unique_ptr<assembly::Assembler> assembler_;
  std::unique_ptr<petsc::PetscBlockMatrix> matrix_;     // host linear algebra
  std::unique_ptr<petsc::PetscDeviceOperator> device_;  // or the GPU's
  std::unique_ptr<petsc::PetscBlockVector> b_, x_;
  KSP ksp_ = nullptr;
  std::vector<double> q_, r_;
  double norm_ = 0;
};

}  // namespace

SteadyResult solve_steady_petsc(MPI_Comm comm, const assembly::Problem& global, const EdgeMesh& em,
                                double gamma, std::vector<double>& q,
                                const PetscSteadyOptions& options) {
  if (q.size() != static_cast<size_t>(em.n_nodes) * kB || global.n_nodes() != em.n_nodes ||
      global.block_size() != kB)
    throw std::invalid_argument("solve_steady_petsc: a state of " + std::to_string(q.size()) +
                                " values and a problem of " + std::to_string(global.n_nodes()) +
                                " nodes for a mesh of " + std::to_string(em.n_nodes));
  check_steady_options(options.steady, "solve_steady_petsc");
  if (options.steady.storage != JacobianStorage::automatic &&
      options.steady.storage != JacobianStorage::block_csr)
    throw std::invalid_argument("solve_steady_petsc: PETSc takes the Jacobian as block CSR, not " +
                                std::string(storage_name(options.steady.storage)));
  PetscSteadyEngine engine(comm, global, em, gamma, q, options);
  SteadyResult result = pseudo_time_steps(engine, options.steady);
  result.storage = JacobianStorage::block_csr;
  engine.read_state(q);
  return result;
}

}  // namespace dualjit::cfd
