// The steady Euler solve over MPI ranks through PETSc: converged to machine zero, the same
// pseudo-time history (to the printed digits) and the same state (to round-off) as one
// process, on any number of ranks.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>

#include "backends/distributed/mpi/rank_device.h"
#include "examples/cfd/bump_channel.h"
#include "examples/cfd/roe_problem.h"
#include "examples/distributed/petsc_steady.h"
#include "support/assembly.h"
#include "support/gpu.h"
#include "support/mpi_problems.h"

using namespace dualjit;

namespace {

// What format_history prints of a step, without its seconds.
std::string printed(const cfd::SteadyResult& r) {
  std::string out;
  char line[128];
  for (const cfd::SteadyIteration& h : r.history) {
    std::snprintf(line, sizeof line, "%d %.4e %.3e %d %.1e %d\n", h.iteration,
                  h.residual / r.initial_residual, h.cfl, h.linear_iterations, h.linear_residual,
                  int(h.rejected));
    out += line;
  }
  return out;
}

// The channel with a bump at Mach 0.5 from a noisy free stream: a flow the bump turns.
struct Bump {
  static cfd::FreeStream stream() {
    cfd::FreeStream fs;
    fs.mach = 0.5;
    fs.alpha_deg = 0;
    return fs;
  }
  cfd::FreeStream fs = stream();
  cfd::TetMesh mesh = cfd::bump_channel_mesh(24, 2, 8);
  cfd::EdgeMesh em = cfd::build_edge_mesh(mesh);
  assembly::Problem p = cfd::roe_problem(em, fs, cfd::bump_channel_boundary(em, mesh));
  std::vector<double> q0 = cfd::perturbed_state(em.n_nodes, fs, 0.1, 7);
};

}  // namespace

TEST_CASE("steady Euler through PETSc: the one-process history and state on any number of ranks") {
  const Bump b;
  const cfd::FreeStream& fs = b.fs;
  const cfd::EdgeMesh& em = b.em;
  const assembly::Problem& p = b.p;
  const std::vector<double>& q0 = b.q0;
  cfd::PetscSteadyOptions o;
  o.assembler = test::on_cpu();
  // Point-block Jacobi: the same preconditioner however the nodes are partitioned.
  o.steady.preconditioner = cfd::SteadyPreconditioner::block_jacobi;
  o.options_database = false;

  std::vector<double> q_world = q0, q_self = q0;
  const cfd::SteadyResult world =
      cfd::solve_steady_petsc(MPI_COMM_WORLD, p, em, fs.gamma, q_world, o);
  const cfd::SteadyResult self = cfd::solve_steady_petsc(MPI_COMM_SELF, p, em, fs.gamma, q_self, o);
  if (test::comm_rank(MPI_COMM_WORLD) == 0) MESSAGE(cfd::format_history(world));
  CHECK(world.converged);
  CHECK(world.final_residual <= 1e-10 * world.initial_residual);
  CHECK(world.history.size() <= 40);
  CHECK(printed(world) == printed(self));
  double worst = 0;
  for (size_t k = 0; k < q_world.size(); ++k)
    worst = std::max(worst, std::abs(q_world[k] - q_self[k]));
  CHECK(worst < 1e-12);
  // The free stream is not the answer: the bump turns the flow.
  const auto inf = fs.conservative();
  double off = 0;
  for (int64_t i = 0; i < em.n_nodes; ++i)
    off = std::max(off, std::abs(q_world[i * 5 + 2] - inf[2]));
  CHECK(off > 1e-3);
}

TEST_CASE("steady Euler through PETSc: block ILU(0) per rank and local SSOR converge too") {
  cfd::FreeStream fs;
  fs.mach = 0.5;
  fs.alpha_deg = 3;
  const cfd::EdgeMesh em = cfd::build_edge_mesh(cfd::box_tet_mesh(8, 8, 8));
  const assembly::Problem p = cfd::roe_problem(em, fs);
  for (auto pc :
       {cfd::SteadyPreconditioner::block_ilu0, cfd::SteadyPreconditioner::multicolor_sgs}) {
    CAPTURE(cfd::preconditioner_name(pc));
    std::vector<double> q = cfd::perturbed_state(em.n_nodes, fs, 0.1, 3);
    cfd::PetscSteadyOptions o;
    o.assembler = test::on_cpu();
    o.steady.preconditioner = pc;
    o.options_database = false;
    const cfd::SteadyResult r = cfd::solve_steady_petsc(MPI_COMM_WORLD, p, em, fs.gamma, q, o);
    CHECK(r.converged);
    CHECK(r.history.size() <= 40);
  }
  std::vector<double> q(3);
  CHECK_THROWS_AS(cfd::solve_steady_petsc(MPI_COMM_WORLD, p, em, fs.gamma, q),
                  std::invalid_argument);
}

TEST_SUITE("gpu") {
  TEST_CASE("steady Euler through PETSc, each rank assembling on a GPU: the CPU ranks' history" *
            test::needs_gpu()) {
    const Bump b;
    const cfd::FreeStream& fs = b.fs;
    const cfd::EdgeMesh& em = b.em;
    const assembly::Problem& p = b.p;
    const std::vector<double>& q0 = b.q0;
    const distributed::Communicator comm(MPI_COMM_WORLD);
    // The host's GPUs in turn: ranks share one where there are fewer GPUs than ranks.
    CHECK(distributed::select_rank_device(comm) >= 0);
    cfd::PetscSteadyOptions o;
    o.steady.preconditioner = cfd::SteadyPreconditioner::block_jacobi;
    o.options_database = false;
    o.assembler = test::on_cpu();
    std::vector<double> q_cpu = q0;
    const cfd::SteadyResult cpu = cfd::solve_steady_petsc(comm.comm(), p, em, fs.gamma, q_cpu, o);
    // Point-block Jacobi both ways: PETSc's on the host matrix, or the GPU's block Jacobi
    // inside PETSc's GMRES (PetscDeviceOperator).
    o.assembler = test::on_gpu();
    for (bool on_device : {true, false}) {
      CAPTURE(on_device);
      o.device_linear_algebra = on_device;
      std::vector<double> q_gpu = q0;
      const cfd::SteadyResult gpu = cfd::solve_steady_petsc(comm.comm(), p, em, fs.gamma, q_gpu, o);
      if (comm.rank() == 0) MESSAGE(cfd::format_history(gpu));
      CHECK(gpu.converged);
      CHECK(printed(gpu) == printed(cpu));
      double worst = 0;
      for (size_t k = 0; k < q_gpu.size(); ++k)
        worst = std::max(worst, std::abs(q_gpu[k] - q_cpu[k]));
      CHECK(worst < 1e-12);
    }
    // Multicoloured SGS on each rank's GPU: another preconditioner, the same steady state.
    o.device_linear_algebra = true;
    o.steady.preconditioner = cfd::SteadyPreconditioner::multicolor_sgs;
    std::vector<double> q_sgs = q0;
    const cfd::SteadyResult sgs = cfd::solve_steady_petsc(comm.comm(), p, em, fs.gamma, q_sgs, o);
    CHECK(sgs.converged);
    int its_sgs = 0, its_jacobi = 0;
    for (const auto& h : sgs.history) its_sgs += h.linear_iterations;
    for (const auto& h : cpu.history) its_jacobi += h.linear_iterations;
    CHECK(its_sgs < its_jacobi);
    double worst = 0;
    for (size_t k = 0; k < q_sgs.size(); ++k)
      worst = std::max(worst, std::abs(q_sgs[k] - q_cpu[k]));
    CHECK(worst < 1e-9);
    o.steady.preconditioner = cfd::SteadyPreconditioner::block_ilu0;
    std::vector<double> q = q0;
    CHECK_THROWS_WITH_AS(cfd::solve_steady_petsc(comm.comm(), p, em, fs.gamma, q, o),
                         doctest::Contains("block_ilu0 has no GPU form"), std::invalid_argument);
  }
}
