// The distributed steady Euler solve on CPU ranks (issue 19: "do what the CPUs allow: timing the
// communication"): one mesh, run as mpirun -np N. Reports, per rank, the median time of one
// host ghost exchange of the state (5 doubles a node) against the rank's residual assembly and
// Jacobian assembly, and the whole solve through PETSc (examples/distributed/petsc_steady.h,
// block Jacobi + ILU(0) per rank, GMRES(30)) with its time per nonlinear iteration split into
// assembly (with the hand-over to MATMPIBAIJ), preconditioner set-up and Krylov.
//
//   mpirun -np N --bind-to none mpi_steady_euler [--mesh NX NY NZ] [--backend cpu|cuda]
//                                                [--linear device|host] [--no-solve]
// (defaults: the bump channel 96 x 4 x 32, cpu; cuda: each rank assembles on a GPU of its host,
// the host's GPUs taken in turn, so several ranks may share one; the ghost exchange and the
// hand-over to PETSc are host-staged, as the timings show; --linear: with cuda, the products and
// the preconditioner on each rank's GPU inside PETSc's GMRES (petsc_device_operator.h, block
// Jacobi) or the matrix on the host for PETSc's own block Jacobi + ILU(0); one rank with cuda
// also runs the one-GPU solve_steady (DeviceGmres, the tuned storage) as the reference. With
// cuda the rank's residual and Jacobian are also timed on its GPU alone (state resident, CUDA
// events), the compute that multi-GPU scaling divides; --no-solve stops there, for meshes whose
// PETSc solve would take minutes)
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/cuda/driver.h"
#include "backends/distributed/mpi/ghost_exchange.h"
#include "backends/distributed/mpi/rank_device.h"
#include "backends/distributed/partition.h"
#include "backends/distributed/rank_problem.h"
#include "bench/wall_clock.h"
#include "examples/cfd/bump_channel.h"
#include "examples/cfd/roe_problem.h"
#include "examples/distributed/petsc_steady.h"
#include "solvers/petsc/petsc_session.h"

using namespace dualjit;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double median_seconds(const distributed::Communicator& comm, int repeats, F&& f) {
  std::vector<double> t;
  for (int k = 0; k < repeats + 2; ++k) {
    MPI_Barrier(comm.comm());
    const auto t0 = std::chrono::steady_clock::now();
    f();
    if (k >= 2) t.push_back(bench::seconds_since(t0));  // two warm-up runs
  }
  return median(t);
}

// Milliseconds of `f`'s work on the current context's legacy stream: CUDA events, the median of
// `repeats` after two warm-up runs.
template <class F>
double median_event_ms(int repeats, F&& f) {
  std::vector<double> ms;
  for (int k = 0; k < repeats + 2; ++k) {
    cuda::Event t0, t1;
    t0.record();
    f();
    t1.record();
    if (k >= 2) ms.push_back(cuda::Event::elapsed_ms(t0, t1));
  }
  return median(ms);
}

}  // namespace

int main(int argc, char** argv) {
  petsc::PetscSession session(nullptr, nullptr);
  int nx = 96, ny = 4, nz = 32;
  std::string backend = "cpu", linear = "device";
  bool solve = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--backend" && i + 1 < argc) backend = argv[++i];
    if (a == "--linear" && i + 1 < argc) linear = argv[++i];
    if (a == "--no-solve") solve = false;
    if (a == "--mesh" && i + 3 < argc) {
      nx = std::atoi(argv[++i]);
      ny = std::atoi(argv[++i]);
      nz = std::atoi(argv[++i]);
    }
  }
  const distributed::Communicator comm(MPI_COMM_WORLD);
  int device = -1;
  if (backend == "cuda") {
    device = distributed::select_rank_device(comm);
    if (device < 0) {
      if (comm.rank() == 0) std::fprintf(stderr, "--backend cuda: no usable GPU\n");
      return 2;
    }
  }
  cfd::FreeStream fs;
  fs.mach = 0.5;
  fs.alpha_deg = 0;
  const cfd::TetMesh mesh = cfd::bump_channel_mesh(nx, ny, nz);
  const cfd::EdgeMesh em = cfd::build_edge_mesh(mesh);
  const assembly::Problem p = cfd::roe_problem(em, fs, cfd::bump_channel_boundary(em, mesh));

  const distributed::NodePartition part =
      distributed::partition_nodes(p.n_nodes(), distributed::element_sets(p), comm.size());
  distributed::RankProblem rp = distributed::rank_problem(p, part, comm.rank());
  const distributed::GhostExchange x(comm, rp.layout);
  assembly::AssemblerOptions ao;
  ao.backend = device >= 0 ? assembly::Backend::Cuda : assembly::Backend::Cpu;
  assembly::Assembler a(rp.problem, ao);
  std::vector<double> q =
      distributed::local_values(rp.layout, cfd::perturbed_state(em.n_nodes, fs, 0.1, 3), 5);
  const double exchange = median_seconds(comm, 50, [&] { x.update(q, 5); });
  const double residual = median_seconds(comm, 10, [&] { a.residual(q); });
  const double jacobian = median_seconds(comm, 5, [&] { a.jacobian(q); });
  const double exchange_max = comm.max(exchange), residual_max = comm.max(residual),
               jacobian_max = comm.max(jacobian);
  const int64_t ghosts = comm.sum(rp.layout.n_ghosts());
  double device_residual = 0, device_jacobian = 0;
  if (device >= 0) {
    a.set_state(q);
    device_residual = comm.max(median_event_ms(20, [&] { a.run_residual(); }));
    device_jacobian = comm.max(median_event_ms(10, [&] { a.run_jacobian(); }));
  }
  if (comm.rank() == 0) {
    std::printf(
        "bump channel %d x %d x %d: %lld nodes, %lld edges; %d rank%s; %s (OMP_NUM_THREADS=%s)\n",
        nx, ny, nz, (long long)em.n_nodes, (long long)em.n_edges(), comm.size(),
        comm.size() > 1 ? "s" : "", device >= 0 ? "assembly on the GPU" : "CPU backend",
        std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "unset");
    std::printf("ghost nodes, all ranks: %lld (%.1f%% of the nodes)\n", (long long)ghosts,
                100.0 * ghosts / em.n_nodes);
    std::printf(
        "slowest rank, medians: ghost exchange %.3f ms, residual %.3f ms, Jacobian %.3f ms\n",
        1e3 * exchange_max, 1e3 * residual_max, 1e3 * jacobian_max);
    if (device >= 0)
      std::printf(
          "slowest rank, on its GPU alone (state resident, CUDA events, medians): residual "
          "%.3f ms, Jacobian %.3f ms\n",
          device_residual, device_jacobian);
    std::printf(
        "RESULT mesh=%dx%dx%d nodes=%lld edges=%lld ranks=%d backend=%s ghosts=%lld "
        "exchange_ms=%.4f residual_ms=%.3f jacobian_ms=%.3f device_residual_ms=%.4f "
        "device_jacobian_ms=%.4f\n",
        nx, ny, nz, (long long)em.n_nodes, (long long)em.n_edges(), comm.size(), backend.c_str(),
        (long long)ghosts, 1e3 * exchange_max, 1e3 * residual_max, 1e3 * jacobian_max,
        device_residual, device_jacobian);
  }
  if (!solve) return 0;

  std::vector<double> qs = cfd::perturbed_state(em.n_nodes, fs, 0.1, 3);
  cfd::PetscSteadyOptions o;
  o.assembler = ao;
  o.options_database = false;
  o.device_linear_algebra = linear == "device";
  // Twice: the first run compiles or loads the kernels, the second is reported.
  std::vector<double> q0 = qs;
  cfd::solve_steady_petsc(comm.comm(), p, em, fs.gamma, q0, o);
  const auto t0 = std::chrono::steady_clock::now();
  const cfd::SteadyResult r = cfd::solve_steady_petsc(comm.comm(), p, em, fs.gamma, qs, o);
  const double total = comm.max(bench::seconds_since(t0));
  double as = 0, ps = 0, ks = 0;
  int lin = 0;
  for (const cfd::SteadyIteration& h : r.history) {
    as += h.assembly_seconds;
    ps += h.preconditioner_seconds;
    ks += h.krylov_seconds;
    lin += h.linear_iterations;
  }
  const double n = static_cast<double>(r.history.size());
  as = comm.max(as);
  ps = comm.max(ps);
  ks = comm.max(ks);
  if (comm.rank() == 0) {
    std::printf(
        "solve: %s in %zu steps, %d Krylov iterations, %.3f s; per step (slowest rank): "
        "assembly %.2f ms, set-up %.2f ms, Krylov %.2f ms\n",
        r.converged ? "converged" : "NOT converged", r.history.size(), lin, total, 1e3 * as / n,
        1e3 * ps / n, 1e3 * ks / n);
  }
  if (comm.size() == 1 && device >= 0) {
    // The reference: the whole problem on one GPU, solve_steady's device engine.
    assembly::Problem whole = cfd::roe_problem(em, fs, cfd::bump_channel_boundary(em, mesh));
    assembly::Assembler one(whole, ao);
    std::vector<double> q1 = cfd::perturbed_state(em.n_nodes, fs, 0.1, 3);
    cfd::solve_steady(one, em, fs.gamma, q1);
    q1 = cfd::perturbed_state(em.n_nodes, fs, 0.1, 3);
    const auto t1 = std::chrono::steady_clock::now();
    const cfd::SteadyResult g = cfd::solve_steady(one, em, fs.gamma, q1);
    const double seconds = bench::seconds_since(t1);
    int its = 0;
    for (const cfd::SteadyIteration& h : g.history) its += h.linear_iterations;
    std::printf(
        "one GPU, solve_steady (DeviceGmres, %s storage): %s in %zu steps, %d Krylov "
        "iterations, %.3f s\n",
        std::string(cfd::storage_name(g.storage)).c_str(),
        g.converged ? "converged" : "NOT converged", g.history.size(), its, seconds);
  }
  return r.converged ? 0 : 1;
}
