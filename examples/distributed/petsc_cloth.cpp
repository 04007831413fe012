#include "examples/distributed/petsc_cloth.h"

#include <petscsnes.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>

#include "backends/distributed/mpi/ghost_exchange.h"
#include "backends/distributed/partition.h"
#include "backends/distributed/rank_problem.h"
#include "backends/distributed/solver_numbering.h"
#include "solvers/petsc/petsc_block_matrix.h"
#include "solvers/petsc/petsc_block_vector.h"
#include "solvers/petsc/petsc_check.h"
#include "solvers/stopwatch.h"

namespace dualjit::mesh_energy {
namespace {

using petsc::check_petsc;
constexpr const char* kWho = "minimize_energy_petsc";

void check_inputs(const assembly::Problem& global, std::span<const double> x0,
                  const SnesMinimizeOptions& o) {
  const int64_t n_dofs = global.n_nodes() * global.block_size();
  if (static_cast<int64_t>(x0.size()) != n_dofs)
    throw std::invalid_argument(std::string(kWho) + ": a start of " + std::to_string(x0.size()) +
                                " values for " + std::to_string(global.n_nodes()) + " nodes x " +
                                std::to_string(global.block_size()));
  if (!o.pinned.empty() &&
      (o.pinned.n_dofs() != n_dofs || o.pinned.block_size() != global.block_size()))
    throw std::invalid_argument(
        std::string(kWho) + ": pins over " + std::to_string(o.pinned.n_dofs()) +
        " DOFs in blocks of " + std::to_string(o.pinned.block_size()) + " for a problem of " +
        std::to_string(n_dofs) + " in blocks of " + std::to_string(global.block_size()));
  if (global.n_terms() == 0)
    throw std::invalid_argument(std::string(kWho) + ": the problem has no terms");
  for (size_t t = 0; t < global.n_terms(); ++t)
    if (!global.term(t).energy)
      throw std::invalid_argument(std::string(kWho) + ": term \"" + global.term(t).name +
                                  "\" is not an energy term");
  if (o.max_iterations < 0 || o.linear_max_iterations < 1 || !(o.linear_rtol > 0) ||
      !(o.gradient_tolerance >= 0) || !(o.relative_gradient_tolerance >= 0) ||
      !(o.step_tolerance >= 0))
    throw std::invalid_argument(
        std::string(kWho) + ": max_iterations " + std::to_string(o.max_iterations) +
        ", linear_max_iterations " + std::to_string(o.linear_max_iterations) + ", linear_rtol " +
        std::to_string(o.linear_rtol) + ", tolerances " + std::to_string(o.gradient_tolerance) +
        ", " + std::to_string(o.relative_gradient_tolerance) + ", " +
        std::to_string(o.step_tolerance) + " (caps >= 0 and >= 1, tolerances >= 0, rtol > 0)");
}

// Holds PETSc's error handler on "return quietly" while SNES runs our callbacks: a callback's
// failure is already an exception on every rank (run_on_all), rethrown after SNESSolve.
struct QuietPetscErrors {
  QuietPetscErrors() { PetscPushErrorHandler(PetscReturnErrorHandler, nullptr); }
  ~QuietPetscErrors() { PetscPopErrorHandler(); }
};

class SnesMinimizer {
 public:
  SnesMinimizer(MPI_Comm comm, const assembly::Problem& global, std::span<const double> x0,
                const SnesMinimizeOptions& options)
      : comm_(comm), options_(options), block_(global.block_size()), n_nodes_(global.n_nodes()) {
    // Each rank's own work first, its failures raised on every rank before any collective.
    comm_.run_on_all([&] {
      const distributed::NodePartition part = distributed::partition_nodes(
          global.n_nodes(), distributed::element_sets(global), comm_.size());
      rank_ = std::make_unique<distributed::RankProblem>(
          distributed::rank_problem(global, part, comm_.rank()));
      share_ = std::make_unique<assembly::Problem>(distributed::energy_share(*rank_));
      const distributed::RankLayout& layout = rank_->layout;
      numbers_ = distributed::local_solver_numbers(layout, distributed::solver_numbering(part));
      assembler_ = std::make_unique<assembly::Assembler>(rank_->problem, options_.assembler);
      assembly::AssemblerOptions energy_only = options_.assembler;
      energy_only.hessian_projection = {};  // it never assembles a Hessian
      share_assembler_ = std::make_unique<assembly::Assembler>(*share_, energy_only);
      x_ = distributed::local_values(layout, x0, block_);
      // The pins at the local nodes, ghosts included: their Hessian columns are zeroed too.
      if (!options_.pinned.empty()) {
        pinned_ = solvers::PinnedDofs(layout.n_local(), block_);
        for (int64_t i = 0; i < layout.n_local(); ++i)
          for (int d = 0; d < block_; ++d)
            if (options_.pinned.is_pinned(int64_t(layout.global[i]) * block_ + d))
              pinned_.pin_dof(i * block_ + d);
      }
    });
    const distributed::RankLayout& layout = rank_->layout;
    ghosts_.emplace(comm_, layout);
    matrix_ = std::make_unique<petsc::PetscBlockMatrix>(comm, rank_->problem.pattern(), numbers_,
                                                        layout.n_owned, block_, global.n_nodes());
    x_vec_ = std::make_unique<petsc::PetscBlockVector>(comm, layout.n_owned, block_);
    f_vec_ = std::make_unique<petsc::PetscBlockVector>(comm, layout.n_owned, block_);
    x_vec_->set(x_);
    make_snes();
  }

  SnesMinimizer(const SnesMinimizer&) = delete;
  SnesMinimizer& operator=(const SnesMinimizer&) = delete;

  SnesMinimizeResult solve() {
    solvers::Stopwatch clock;
    PetscErrorCode err = 0;
    {
      QuietPetscErrors quiet;
      err = SNESSolve(snes_, nullptr, x_vec_->vec());
    }
    // A callback's failure, the same on every rank (see guarded).
    if (error_) std::rethrow_exception(error_);
    check_petsc(err, "SNESSolve");

    SnesMinimizeResult r;
    r.seconds = clock.seconds();
    r.history = std::move(history_);
    SNESConvergedReason reason;
    check_petsc(SNESGetConvergedReason(snes_, &reason), "SNESGetConvergedReason");
    r.reason = SNESConvergedReasons[reason];
    r.converged = reason > 0;
    PetscInt its = 0;
    check_petsc(SNESGetLinearSolveIterations(snes_, &its), "SNESGetLinearSolveIterations");
    r.linear_iterations = static_cast<int>(its);
    if (reason < 0 && reason != SNES_DIVERGED_MAX_IT) {
      const SnesIteration last = r.history.empty() ? SnesIteration{} : r.history.back();
      char at[96];
      std::snprintf(at, sizeof at, " after iteration %d (|g| = %.3e)", last.iteration,
                    last.gradient_norm);
      throw std::runtime_error(std::string(kWho) + ": SNES diverged: " + r.reason + at);
    }
    r.x = gather(x_vec_->vec());
    return r;
  }

 private:
  // --- SNES's callbacks: collective, their failures returned to PETSc as errors ---------------

  static PetscErrorCode gradient(SNES, ::Vec x, ::Vec f, void* self) {
    auto& s = *static_cast<SnesMinimizer*>(self);
    return s.guarded([&] {
      s.load(x);
      std::vector<double> g;
      s.comm_.run_on_all([&] {
        g = s.assembler_->gradient(s.x_);
        s.pinned_.zero(g);
      });
      write_owned(f, g, s.rank_->layout.n_owned * s.block_);
    });
  }

  static PetscErrorCode hessian(SNES, ::Vec x, ::Mat, ::Mat, void* self) {
    auto& s = *static_cast<SnesMinimizer*>(self);
    return s.guarded([&] {
      s.load(x);
      std::optional<mesh::BlockCsr<double>> h;
      s.comm_.run_on_all([&] {
        h = s.assembler_->hessian(s.x_);
        s.pinned_.apply_identity(*h);
      });
      s.matrix_->set(*h);
    });
  }

  static PetscErrorCode objective(SNES, ::Vec x, PetscReal* e, void* self) {
    auto& s = *static_cast<SnesMinimizer*>(self);
    return s.guarded([&] {
      s.load(x);
      *e = s.energy();
    });
  }

  // Record `it`, and the step that led to it into record it - 1.
  static PetscErrorCode monitor(SNES snes, PetscInt it, PetscReal fnorm, void* self) {
    auto& s = *static_cast<SnesMinimizer*>(self);
    return s.guarded([&] {
      ::Vec x;
      check_petsc(SNESGetSolution(snes, &x), "SNESGetSolution");
      s.load(x);
      SnesIteration rec;
      rec.iteration = static_cast<int>(it);
      rec.energy = s.energy();
      rec.gradient_norm = fnorm;
      if (it > 0 && !s.history_.empty()) {
        KSP ksp;
        SNESLineSearch ls;
        PetscInt lits = 0;
        PetscReal lambda = 0;
        check_petsc(SNESGetKSP(snes, &ksp), "SNESGetKSP");
        check_petsc(KSPGetIterationNumber(ksp, &lits), "KSPGetIterationNumber");
        check_petsc(SNESGetLineSearch(snes, &ls), "SNESGetLineSearch");
        check_petsc(SNESLineSearchGetLambda(ls, &lambda), "SNESLineSearchGetLambda");
        s.history_.back().step = lambda;
        s.history_.back().linear_iterations = static_cast<int>(lits);
      }
      s.history_.push_back(rec);
    });
  }

  // The step zeroed at the pinned DOFs, whatever KSP made of their identity rows.
  static PetscErrorCode pin_step(SNESLineSearch, ::Vec, ::Vec y, PetscBool* changed, void* self) {
    auto& s = *static_cast<SnesMinimizer*>(self);
    *changed = PETSC_FALSE;
    if (s.pinned_.empty()) return 0;
    PetscScalar* v = nullptr;
    PetscErrorCode err = VecGetArray(y, &v);
    if (err) return err;
    for (int64_t k = 0; k < s.rank_->layout.n_owned * s.block_; ++k) {
      if (s.pinned_.is_pinned(k) && v[k] != 0) {
        v[k] = 0;
        *changed = PETSC_TRUE;
      }
    }
    return VecRestoreArray(y, &v);
  }

  // Runs a callback's body; an exception becomes PETSc's error code, the exception kept for
  // solve() to rethrow. The bodies fail on every rank alike (run_on_all) or in collectives that
  // fail everywhere, so every rank leaves SNESSolve at the same point.
  template <class F>
  PetscErrorCode guarded(F&& body) {
    try {
      body();
      return 0;
    } catch (...) {
      if (!error_) error_ = std::current_exception();
      return PETSC_ERR_LIB;
    }
  }

  // --- Local state -----------------------------------------------------------------------------

  // x's owned entries into x_, then the ghosts' from their owners (collective).
  void load(::Vec x) {
    const int64_t n = rank_->layout.n_owned * block_;
    const PetscScalar* v = nullptr;
    check_petsc(VecGetArrayRead(x, &v), "VecGetArrayRead");
    std::copy_n(v, n, x_.begin());
    check_petsc(VecRestoreArrayRead(x, &v), "VecRestoreArrayRead");
    ghosts_->update(x_, block_);
  }

  static void write_owned(::Vec f, const std::vector<double>& values, int64_t n) {
    PetscScalar* v = nullptr;
    check_petsc(VecGetArray(f, &v), "VecGetArray");
    std::copy_n(values.begin(), n, v);
    check_petsc(VecRestoreArray(f, &v), "VecRestoreArray");
  }

  // The energy at x_: each rank's share (each element once), summed (collective).
  double energy() {
    double mine = 0;
    comm_.run_on_all([&] { mine = share_assembler_->energy(x_); });
    return comm_.sum(mine);
  }

  // The owned rows of every rank (n_nodes x block), on every rank.
  std::vector<double> gather(::Vec x) {
    const distributed::RankLayout& layout = rank_->layout;
    std::vector<double> mine(n_nodes_ * block_, 0.0), all(mine.size(), 0.0);
    const PetscScalar* v = nullptr;
    check_petsc(VecGetArrayRead(x, &v), "VecGetArrayRead");
    for (int64_t i = 0; i < layout.n_owned; ++i)
      std::copy_n(v + i * block_, block_, &mine[int64_t(layout.global[i]) * block_]);
    check_petsc(VecRestoreArrayRead(x, &v), "VecRestoreArrayRead");
    distributed::check_mpi(MPI_Allreduce(mine.data(), all.data(), static_cast<int>(all.size()),
                                         MPI_DOUBLE, MPI_SUM, comm_.comm()),
                           "MPI_Allreduce");
    return all;
  }

  void make_snes() {
    const SnesMinimizeOptions& o = options_;
    check_petsc(SNESCreate(comm_.comm(), &snes_.snes), "SNESCreate");
    check_petsc(SNESSetType(snes_, SNESNEWTONLS), "SNESSetType");
    check_petsc(SNESSetFunction(snes_, f_vec_->vec(), &SnesMinimizer::gradient, this),
                "SNESSetFunction");
    check_petsc(
        SNESSetJacobian(snes_, matrix_->mat(), matrix_->mat(), &SnesMinimizer::hessian, this),
        "SNESSetJacobian");
    check_petsc(SNESSetObjective(snes_, &SnesMinimizer::objective, this), "SNESSetObjective");
    check_petsc(SNESMonitorSet(snes_, &SnesMinimizer::monitor, this, nullptr), "SNESMonitorSet");
    check_petsc(SNESSetTolerances(snes_, o.gradient_tolerance, o.relative_gradient_tolerance,
                                  o.step_tolerance, o.max_iterations, PETSC_DEFAULT),
                "SNESSetTolerances");
    // A gradient may grow on the way to a minimum: no divergence test on its norm.
    check_petsc(SNESSetDivergenceTolerance(snes_, -1.0), "SNESSetDivergenceTolerance");
    KSP ksp;
    PC pc;
    check_petsc(SNESGetKSP(snes_, &ksp), "SNESGetKSP");
    check_petsc(KSPGetPC(ksp, &pc), "KSPGetPC");
    switch (o.linear) {
      case SnesLinearSolver::cg_point_block_jacobi:
        check_petsc(KSPSetType(ksp, KSPCG), "KSPSetType");
        check_petsc(PCSetType(pc, PCPBJACOBI), "PCSetType");
        break;
      case SnesLinearSolver::gmres_block_ilu0:
        check_petsc(KSPSetType(ksp, KSPGMRES), "KSPSetType");
        check_petsc(PCSetType(pc, PCBJACOBI), "PCSetType");
        break;
    }
    check_petsc(
        KSPSetTolerances(ksp, o.linear_rtol, PETSC_DEFAULT, PETSC_DEFAULT, o.linear_max_iterations),
        "KSPSetTolerances");
    if (o.options_database) check_petsc(SNESSetFromOptions(snes_), "SNESSetFromOptions");
    // After the options: a line search type chosen there gets the pins too.
    SNESLineSearch ls;
    check_petsc(SNESGetLineSearch(snes_, &ls), "SNESGetLineSearch");
    check_petsc(SNESLineSearchSetPreCheck(ls, &SnesMinimizer::pin_step, this),
                "SNESLineSearchSetPreCheck");
  }

  distributed::Communicator comm_;
  SnesMinimizeOptions options_;
  int block_;
  int64_t n_nodes_;
  std::unique_ptr<distributed::RankProblem> rank_;
  std::unique_ptr<assembly::Problem> share_;
  std::vector<int64_t> numbers_;
  solvers::PinnedDofs pinned_;  // local DOFs; empty: none
  std::optional<distributed::GhostExchange> ghosts_;
  std::unique_ptr<assembly::Assembler> assembler_, share_assembler_;
  std::unique_ptr<petsc::PetscBlockMatrix> matrix_;
  std::unique_ptr<petsc::PetscBlockVector> x_vec_, f_vec_;
  std::vector<double> x_;  // n_local x block: owned, then ghosts
  std::vector<SnesIteration> history_;
  std::exception_ptr error_;
  // Last: destroyed first, while what its callbacks use still exists.
  struct SnesHandle {
    SNES snes = nullptr;
    ~SnesHandle() { SNESDestroy(&snes); }
    operator SNES() const { return snes; }
  } snes_;
};

}  // namespace

std::string format_snes_history(const SnesMinimizeResult& r) {
  std::string out = "  it          energy        |g|   step  linear\n";
  char line[128];
  for (const SnesIteration& h : r.history) {
    std::snprintf(line, sizeof line, "%4d %15.8e %10.3e %6.3f %7d\n", h.iteration, h.energy,
                  h.gradient_norm, h.step, h.linear_iterations);
    out += line;
  }
  return out + "SNES: " + r.reason + "\n";
}

SnesMinimizeResult minimize_energy_petsc(MPI_Comm comm, const assembly::Problem& global,
                                         std::span<const double> x0,
                                         const SnesMinimizeOptions& options) {
  check_inputs(global, x0, options);
  SnesMinimizer m(comm, global, x0, options);
  return m.solve();
}

}  // namespace dualjit::mesh_energy
