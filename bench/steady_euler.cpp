// The steady Euler solve end to end (issue 18: "time to a converged solution, GPU and CPU,
// implicit against explicit; per nonlinear iteration: assembly, preconditioner set-up, Krylov
// iterations"). The channel with a bump (examples/cfd/bump_channel.h, Mach 0.5, slip walls),
// or a Gmsh mesh with physical surfaces "wall" and "farfield" (--msh: the sphere of
// tools/make_cfd_meshes.sh, Mach 0.3), from the free stream, solved by pseudo-transient
// continuation (steady_euler.h defaults: CFL 10 growing by SER, GMRES(30) to 1e-3, |R| to 1e-10
// |R0|) on each backend asked for, then explicit local time stepping (CFL 0.9) of the same residual
// from the same start for a capped number of steps, timed per step. Each solve runs twice; the
// second is reported (the first compiles or loads the kernels). GPU phases are wall clock around
// synchronised device work. The Krylov iteration's floor: the bytes it must move (the matrix once
// for the product and twice for a symmetric Gauss-Seidel sweep, or once more for block Jacobi's
// inverses, plus about 2 (j + 3) vectors for CGS2 at basis size j) over the measured copy
// bandwidth.
//
//   steady_euler [--mesh NX NY NZ | --msh FILE] [--backend cuda|cpu|both]
//                [--preconditioner auto|jacobi|sgs|ilu] [--explicit-steps K]
//                [--sweeps N] [--linear-rtol T] [--eisenstat-walker 0|1] [--cfl0 C] [--ser E]
//                [--storage auto|block_csr|split|edges]   (split, edges: the GPU only)
// On the GPU it also times one pseudo-time step of each storage (storage_tuner.h: assembly,
// set-up, Krylov and their sum, the tuner's measure) and the Krylov kernels on each storage.
//                (defaults: --mesh 192 4 64, both, auto, 2000, and SteadyOptions' own)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backends/assembly/assembler.h"
#include "backends/cuda/driver.h"
#include "bench/energy_bench.h"
#include "examples/cfd/bump_channel.h"
#include "examples/cfd/edge_mesh.h"
#include "examples/cfd/gmsh_reader.h"
#include "examples/cfd/roe_problem.h"
#include "examples/cfd/steady_euler.h"
#include "examples/cfd/storage_tuner.h"
#include "solvers/device_gmres.h"

using namespace dualjit;

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int nx = 192, ny = 4, nz = 64, explicit_steps = 2000;
  std::string backends = "both", pc = "auto", msh, storage = "auto";
  cfd::SteadyOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--mesh" && i + 3 < argc) {
      nx = std::atoi(argv[++i]);
      ny = std::atoi(argv[++i]);
      nz = std::atoi(argv[++i]);
    } else if (a == "--msh" && i + 1 < argc) {
      msh = argv[++i];
    } else if (a == "--backend" && i + 1 < argc) {
      backends = argv[++i];
    } else if (a == "--preconditioner" && i + 1 < argc) {
      pc = argv[++i];
    } else if (a == "--sweeps" && i + 1 < argc) {
      options.gauss_seidel_sweeps = std::atoi(argv[++i]);
    } else if (a == "--linear-rtol" && i + 1 < argc) {
      options.linear.rtol = std::atof(argv[++i]);
    } else if (a == "--storage" && i + 1 < argc) {
      storage = argv[++i];
      options.storage = cfd::parse_storage(storage);
    } else if (a == "--eisenstat-walker" && i + 1 < argc) {
      options.eisenstat_walker = std::atoi(argv[++i]) != 0;
    } else if (a == "--cfl0" && i + 1 < argc) {
      options.cfl_initial = std::atof(argv[++i]);
    } else if (a == "--ser" && i + 1 < argc) {
      options.ser_exponent = std::atof(argv[++i]);
    } else if (a == "--explicit-steps" && i + 1 < argc) {
      explicit_steps = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: %s [--mesh NX NY NZ | --msh FILE] [--backend cuda|cpu|both] "
                   "[--preconditioner auto|jacobi|sgs|ilu] [--explicit-steps K] [--sweeps N] "
                   "[--linear-rtol T] [--eisenstat-walker 0|1] [--cfl0 C] [--ser E] "
                   "[--storage auto|block_csr|split|edges]\n",
                   argv[0]);
      return 2;
    }
  }
  const bool want_gpu = backends != "cpu";
  double bw = 0;
  if (want_gpu && !bench::open_device(false, &bw)) return 1;
  if (pc == "jacobi") options.preconditioner = cfd::SteadyPreconditioner::block_jacobi;
  if (pc == "sgs") options.preconditioner = cfd::SteadyPreconditioner::multicolor_sgs;
  if (pc == "ilu") options.preconditioner = cfd::SteadyPreconditioner::block_ilu0;

  cfd::TetMesh mesh;
  cfd::EdgeMesh em;
  cfd::BoundaryAreas boundary;
  cfd::FreeStream fs;
  fs.alpha_deg = 0;
  std::string what;
  if (msh.empty()) {
    mesh = cfd::bump_channel_mesh(nx, ny, nz);
    em = cfd::build_edge_mesh(mesh);
    boundary = cfd::bump_channel_boundary(em, mesh);
    fs.mach = 0.5;
    what = "bump channel " + std::to_string(nx) + " x " + std::to_string(ny) + " x " +
           std::to_string(nz);
  } else {
    const cfd::GmshMesh g = cfd::read_gmsh_tagged(msh);
    mesh = g.mesh;
    em = cfd::build_edge_mesh(mesh);
    boundary = cfd::tagged_boundary(
        em, g, {{"farfield", cfd::BoundaryKind::farfield}, {"wall", cfd::BoundaryKind::slip_wall}});
    fs.mach = 0.3;
    what = msh;
  }
  assembly::Problem p = cfd::roe_problem(em, fs, boundary);
  const std::vector<double> q0 = cfd::perturbed_state(em.n_nodes, fs, 0.0, 1);
  std::printf(
      "%s: %lld nodes, %lld edges, %lld tets; Mach %.2f; preconditioner %s, %d sweeps; GMRES(%d) "
      "to %.0e%s; CFL %.0f, SER exponent %.2f; Jacobian storage %s\n",
      what.c_str(), (long long)em.n_nodes, (long long)em.n_edges(), (long long)mesh.n_tets(),
      fs.mach, pc.c_str(), options.gauss_seidel_sweeps, options.linear.restart, options.linear.rtol,
      options.eisenstat_walker ? " (Eisenstat-Walker from 0.1)" : "", options.cfl_initial,
      options.ser_exponent, storage.c_str());
  // Blocks of the Jacobian: one per node and two per edge.
  const double matrix_bytes = double(em.n_nodes + 2 * em.n_edges()) * 25 * 8;
  const double vector_bytes = double(em.n_nodes) * 5 * 8;

  for (const char* name : {"cuda", "cpu"}) {
    if (backends != "both" && backends != name) continue;
    const bool gpu = std::strcmp(name, "cuda") == 0;
    assembly::AssemblerOptions ao;
    ao.backend = gpu ? assembly::Backend::Cuda : assembly::Backend::Cpu;
    assembly::Assembler a(p, ao);
    std::vector<double> q = q0;
    cfd::solve_steady(a, em, fs.gamma, q, options);  // warm-up
    q = q0;
    const cfd::SteadyResult r = cfd::solve_steady(a, em, fs.gamma, q, options);
    std::printf("\n%s implicit:\n%s", name, cfd::format_history(r).c_str());
    std::vector<double> as, ps, ks, per_krylov;
    double total = 0;
    int krylov = 0;
    for (const auto& h : r.history) {
      as.push_back(h.assembly_seconds);
      ps.push_back(h.preconditioner_seconds);
      ks.push_back(h.krylov_seconds);
      if (h.linear_iterations) per_krylov.push_back(h.krylov_seconds / h.linear_iterations);
      total += h.seconds;
      krylov += h.linear_iterations;
    }
    const bool sgs = gpu ? options.preconditioner != cfd::SteadyPreconditioner::block_jacobi
                         : options.preconditioner == cfd::SteadyPreconditioner::multicolor_sgs;
    const double krylov_bytes = matrix_bytes * (sgs ? 3 : 1) +
                                (sgs ? 0 : double(em.n_nodes) * 25 * 8) +
                                vector_bytes * 2 * (options.linear.restart / 2 + 3);
    std::printf(
        "RESULT backend=%s storage=%s nodes=%lld steps=%zu converged=%d seconds=%.4f "
        "per_step_median: assembly_ms=%.3f preconditioner_ms=%.3f krylov_ms=%.3f "
        "krylov_iterations=%d ms_per_krylov_iteration=%.4f",
        name, std::string(cfd::storage_name(r.storage)).c_str(), (long long)em.n_nodes,
        r.history.size(), int(r.converged), total, 1e3 * median(as), 1e3 * median(ps),
        1e3 * median(ks), krylov, 1e3 * median(per_krylov));
    if (gpu) std::printf(" krylov_floor_ms=%.4f", 1e3 * krylov_bytes / bw);
    std::printf("\n");
    if (gpu) {
      // One pseudo-time step per storage from the free stream, as the tuner times them.
      for (const cfd::StorageTiming& t : cfd::time_storages(a, em, fs.gamma, q0, options)) {
        std::printf(
            "RESULT backend=cuda storage=%s iteration_ms=%.3f assembly_ms=%.3f setup_ms=%.3f "
            "krylov_ms=%.3f krylov_iterations=%d\n",
            std::string(cfd::storage_name(t.storage)).c_str(), t.iteration_ms, t.assembly_ms,
            t.setup_ms, t.krylov_ms, t.krylov_iterations);
      }
      // The Krylov iteration's parts on the converged state's Jacobian, CUDA events, medians
      // of 20 after a warm-up: the product and each preconditioner, on the general block CSR,
      // then the product and SGS on the split form by rows and in edge-based storage.
      a.set_state(q);
      const assembly::DeviceBsr jac = a.run_jacobian();
      solvers::DeviceGmres g(em.n_nodes, 5, 30);
      cuda::DeviceBuffer x(em.n_nodes * 5 * sizeof(double)), y(x.bytes());
      x.fill_bytes(0);
      const double* xp = reinterpret_cast<const double*>(x.get());
      double* yp = reinterpret_cast<double*>(y.get());
      const auto time = [&](auto&& work) {
        std::vector<double> ms;
        for (int rep = 0; rep < 21; ++rep) {
          cuda::Event t0, t1;
          t0.record();
          work();
          t1.record();
          if (rep > 0) ms.push_back(cuda::Event::elapsed_ms(t0, t1));
        }
        return median(ms);
      };
      g.set_matrix(jac, solvers::DevicePreconditioner::multicolor_sgs);
      const double spmv = time([&] { g.multiply(xp, yp); });
      const double sgs_ms = time([&] { g.precondition(xp, yp); });
      g.set_matrix(jac, solvers::DevicePreconditioner::block_jacobi);
      const double jacobi_ms = time([&] { g.precondition(xp, yp); });
      std::printf(
          "RESULT backend=cuda parts: spmv_ms=%.4f (floor %.4f) sgs_ms=%.4f (floor %.4f, %d "
          "colours) jacobi_ms=%.4f (floor %.4f)\n",
          spmv, 1e3 * (matrix_bytes + 2 * vector_bytes) / bw, sgs_ms,
          1e3 * (2 * matrix_bytes + 4 * vector_bytes) / bw, g.colors(), jacobi_ms,
          1e3 * (double(em.n_nodes) * 200 + 2 * vector_bytes) / bw);
      for (const auto order : {assembly::OffOrder::rows, assembly::OffOrder::elements}) {
        const auto split = a.run_jacobian_split<double>(nullptr, order);
        g.set_matrix(split, solvers::DevicePreconditioner::multicolor_sgs);
        const double split_spmv = time([&] { g.multiply(xp, yp); });
        const double split_sgs = time([&] { g.precondition(xp, yp); });
        std::printf("RESULT backend=cuda parts %s: spmv_ms=%.4f sgs_ms=%.4f\n",
                    order == assembly::OffOrder::rows ? "split" : "edges", split_spmv, split_sgs);
      }
    }

    if (explicit_steps <= 0) continue;
    std::vector<double> qe = q0;
    cfd::solve_steady_explicit(a, em, fs.gamma, qe, 0.9, 10, 1e-10);  // warm-up
    qe = q0;
    const cfd::SteadyResult e =
        cfd::solve_steady_explicit(a, em, fs.gamma, qe, 0.9, explicit_steps, 1e-10);
    // Each history entry is kExplicitCheck steps and one residual norm.
    std::vector<double> es;
    double etotal = 0;
    for (const auto& h : e.history) {
      es.push_back(h.seconds / cfd::kExplicitCheck);
      etotal += h.seconds;
    }
    std::printf(
        "RESULT backend=%s explicit steps=%d converged=%d |R|/|R0|=%.3e seconds=%.4f "
        "ms_per_step=%.4f\n",
        name, e.steps, int(e.converged), e.final_residual / e.initial_residual, etotal,
        1e3 * median(es));
  }
  return 0;
}
