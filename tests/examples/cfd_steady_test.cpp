// The steady Euler solve (examples/cfd/steady_euler.h) on the CPU backend, judged by its
// convergence: pseudo-transient continuation with the exact Jacobian reaches machine zero in
// a few steps, quadratically at the end, where explicit local time stepping of the same
// residual needs over a hundred times as many; every preconditioner works, Gauss-Seidel and
// ILU(0) with fewer Krylov iterations than block Jacobi; the steady state of a box in a
// uniform stream is that stream.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "backends/assembly/assembler.h"
#include "examples/cfd/bump_channel.h"
#include "examples/cfd/device_pseudo_time.h"
#include "examples/cfd/manufactured.h"
#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_problem.h"
#include "examples/cfd/steady_euler.h"
#include "examples/cfd/storage_tuner.h"
#include "jit/nvrtc_compiler.h"
#include "support/assembly.h"
#include "support/demo_files.h"
#include "support/gpu.h"
#include "support/nvrtc_module.h"

using namespace dualjit;
using dualjit::test::on_cpu;

namespace {

constexpr int kB = 5;

}  // namespace

TEST_CASE("steady Euler: implicit PTC to machine zero in a few steps, explicit in a thousand") {
  cfd::FreeStream fs;
  fs.mach = 0.5;
  fs.alpha_deg = 3;
  const cfd::EdgeMesh em = cfd::build_edge_mesh(cfd::box_tet_mesh(12, 12, 12));
  assembly::Problem p = cfd::roe_problem(em, fs);
  assembly::Assembler a(p, on_cpu());
  const std::vector<double> q0 = cfd::perturbed_state(em.n_nodes, fs, 0.1, 3);

  std::vector<double> q = q0;
  const cfd::SteadyResult r = cfd::solve_steady(a, em, fs.gamma, q);
  MESSAGE("implicit:\n" << cfd::format_history(r));
  REQUIRE(r.converged);
  CHECK(r.history.size() <= 40);
  CHECK(r.final_residual <= 1e-10 * r.initial_residual);
  const auto inf = fs.conservative();
  double off = 0;
  for (int64_t i = 0; i < em.n_nodes; ++i)
    for (int k = 0; k < kB; ++k) off = std::max(off, std::abs(q[i * kB + k] - inf[k]));
  CHECK(off < 1e-9);
  // Newton at the end: once the CFL is large each step at least squares the relative residual
  // (log ratio near 2), where a linearly converging method keeps it near 1.
  double best_order = 0;
  for (size_t k = 1; k < r.history.size(); ++k) {
    const double a0 = r.history[k - 1].residual / r.initial_residual;
    const double a1 = r.history[k].residual / r.initial_residual;
    if (a0 < 1e-2) best_order = std::max(best_order, std::log(a1) / std::log(a0));
  }
  const double last = r.final_residual / r.initial_residual;
  const double before = r.history.back().residual / r.initial_residual;
  if (before < 1e-2) best_order = std::max(best_order, std::log(last) / std::log(before));
  CAPTURE(best_order);
  CHECK(best_order > 1.6);

  // Explicit local time stepping of the same residual from the same start, capped: it gets
  // there too (first-order upwinding damps the noise), in about a thousand steps.
  std::vector<double> qe = q0;
  const cfd::SteadyResult e = cfd::solve_steady_explicit(a, em, fs.gamma, qe, 0.9, 5000, 1e-10);
  MESSAGE("explicit: |R|/|R0| " << e.final_residual / e.initial_residual << " after " << e.steps
                                << " steps");
  CHECK(e.final_residual < e.initial_residual);  // stable
  CHECK(e.steps > 100 * r.steps);
  CHECK(e.history.size() ==
        static_cast<size_t>((e.steps + cfd::kExplicitCheck - 1) / cfd::kExplicitCheck));
}

TEST_CASE(
    "steady Euler: block Jacobi, multicoloured Gauss-Seidel and block ILU(0) all converge, the "
    "last two in fewer Krylov steps") {
  cfd::FreeStream fs;
  fs.mach = 0.7;
  fs.alpha_deg = 5;
  fs.beta_deg = 2;
  const cfd::EdgeMesh em = cfd::build_edge_mesh(cfd::box_tet_mesh(5, 4, 4, 1.5, 1.0, 1.0));
  assembly::Problem p = cfd::roe_problem(em, fs);
  assembly::Assembler a(p, on_cpu());
  const std::vector<double> q0 = cfd::perturbed_state(em.n_nodes, fs, 0.1, 9);
  int krylov[3] = {0, 0, 0};
  const cfd::SteadyPreconditioner kinds[3] = {cfd::SteadyPreconditioner::block_jacobi,
                                              cfd::SteadyPreconditioner::multicolor_sgs,
                                              cfd::SteadyPreconditioner::block_ilu0};
  for (int k = 0; k < 3; ++k) {
    cfd::SteadyOptions o;
    o.preconditioner = kinds[k];
    std::vector<double> q = q0;
    const cfd::SteadyResult r = cfd::solve_steady(a, em, fs.gamma, q, o);
    CHECK(r.converged);
    for (const auto& h : r.history) krylov[k] += h.linear_iterations;
  }
  MESSAGE("Krylov iterations: block Jacobi " << krylov[0] << ", multicoloured SGS " << krylov[1]
                                             << ", block ILU(0) " << krylov[2]);
  CHECK(krylov[1] < krylov[0]);
  CHECK(krylov[2] < krylov[0]);
}

TEST_CASE("steady Euler: a step into negative pressure is undone and retried at a smaller CFL") {
  cfd::FreeStream fs;
  fs.mach = 0.5;
  fs.alpha_deg = 0;
  const cfd::TetMesh mesh = cfd::bump_channel_mesh(24, 2, 8);
  const cfd::EdgeMesh em = cfd::build_edge_mesh(mesh);
  assembly::Problem p = cfd::roe_problem(em, fs, cfd::bump_channel_boundary(em, mesh));
  assembly::Assembler a(p, on_cpu());
  // Strong noise (densities and pressures down to 40 % of the stream's): Newton's full step
  // from there overshoots into negative pressure.
  std::vector<double> q = cfd::perturbed_state(em.n_nodes, fs, 0.6, 5);
  cfd::SteadyOptions o;
  o.cfl_initial = 1e8;
  const cfd::SteadyResult r = cfd::solve_steady(a, em, fs.gamma, q, o);
  MESSAGE(cfd::format_history(r));
  int rejected = 0;
  for (const auto& h : r.history) rejected += h.rejected;
  CHECK(rejected >= 1);
  CHECK(r.converged);
  for (size_t k = 1; k < r.history.size(); ++k)
    if (r.history[k - 1].rejected) {
      CHECK(r.history[k].cfl < r.history[k - 1].cfl);
      CHECK(r.history[k].residual == r.history[k - 1].residual);  // the state was restored
    }
  CHECK(cfd::format_history(r).find("rejected") != std::string::npos);
}

TEST_CASE("the device pseudo-time module compiles under NVRTC for sm_90 without a GPU") {
  test::check_module_compiles(
      "euler", cfd::device_pseudo_time_source(),
      {"dj_euler_shift", "dj_euler_explicit", "dj_euler_subtract", "dj_euler_physical"});
}

TEST_CASE("steady Euler: the split and edge-based storages are refused on the CPU backend") {
  cfd::FreeStream fs;
  const cfd::EdgeMesh em = cfd::build_edge_mesh(cfd::box_tet_mesh(3, 3, 3));
  assembly::Problem p = cfd::roe_problem(em, fs);
  assembly::Assembler a(p, on_cpu());
  std::vector<double> q = cfd::perturbed_state(em.n_nodes, fs, 0.1, 1);
  cfd::SteadyOptions o;
  for (auto storage : {cfd::JacobianStorage::split, cfd::JacobianStorage::edges}) {
    o.storage = storage;
    CHECK_THROWS_WITH_AS(cfd::solve_steady(a, em, fs.gamma, q, o),
                         doctest::Contains("CUDA backend only"), std::invalid_argument);
  }
  jit::TuningDb db(std::filesystem::temp_directory_path() / "dualjit_no_such_tuning_dir");
  CHECK_THROWS_WITH_AS(cfd::choose_storage(a, em, fs.gamma, q, o, db),
                       doctest::Contains("CUDA backend"), std::invalid_argument);
  CHECK(cfd::parse_storage("edges") == cfd::JacobianStorage::edges);
  CHECK(cfd::parse_storage("auto") == cfd::JacobianStorage::automatic);
  CHECK_THROWS_WITH_AS(cfd::parse_storage("csr"), doctest::Contains("'csr'"),
                       std::invalid_argument);
}

TEST_CASE("local_time_steps: V / spectral radius, unphysical states named") {
  cfd::FreeStream fs;
  const cfd::EdgeMesh em = cfd::build_edge_mesh(cfd::box_tet_mesh(3, 3, 3));
  // A uniform stream along x at Mach 0.5 (rho 1, c 1): each dual face S of node i adds
  // 0.5 |S_x| + |S| to its spectral radius.
  fs.mach = 0.5;
  fs.alpha_deg = 0;
  std::vector<double> q = cfd::free_stream_state(em.n_nodes, fs);
  const std::vector<double> dt = cfd::local_time_steps(em, q, fs.gamma);
  REQUIRE(dt.size() == static_cast<size_t>(em.n_nodes));
  std::vector<double> radius(em.n_nodes, 0.0);
  auto face = [](const double* S) {
    return 0.5 * std::abs(S[0]) + std::sqrt(S[0] * S[0] + S[1] * S[1] + S[2] * S[2]);
  };
  for (int64_t e = 0; e < em.n_edges(); ++e)
    for (int v = 0; v < 2; ++v) radius[em.edges[2 * e + v]] += face(&em.area[3 * e]);
  for (int64_t i = 0; i < em.n_nodes; ++i) {
    radius[i] += face(&em.bnode_area[3 * i]);
    CHECK(dt[i] == doctest::Approx(em.node_volume[i] / radius[i]).epsilon(1e-12));
  }
  q[7 * kB + 4] = 0;  // energy 0: negative pressure at node 7
  CHECK_THROWS_WITH_AS(cfd::local_time_steps(em, q, fs.gamma), doctest::Contains("node 7"),
                       std::invalid_argument);
  CHECK_THROWS_AS(cfd::local_time_steps(em, std::vector<double>(3), fs.gamma),
                  std::invalid_argument);
}

TEST_SUITE("gpu") {
  TEST_CASE(
      "steady Euler on the GPU (state, Jacobian and GMRES on the device) takes the CPU's steps" *
      test::needs_gpu()) {
    cfd::FreeStream fs;
    fs.mach = 0.6;
    fs.alpha_deg = 4;
    cfd::FreeStream along = fs;
    along.alpha_deg = 0;
    // A box in a stream (far field), and the channel with a bump (slip walls).
    const cfd::TetMesh box = cfd::box_tet_mesh(8, 6, 6, 1.4, 1.0, 1.0);
    const cfd::TetMesh channel = cfd::bump_channel_mesh(24, 2, 8);
    for (int c = 0; c < 2; ++c) {
      CAPTURE(c);
      const cfd::TetMesh& mesh = c == 0 ? box : channel;
      const cfd::FreeStream& stream = c == 0 ? fs : along;
      const cfd::EdgeMesh em = cfd::build_edge_mesh(mesh);
      assembly::Problem p =
          c == 0 ? cfd::roe_problem(em, stream)
                 : cfd::roe_problem(em, stream, cfd::bump_channel_boundary(em, mesh));
      const std::vector<double> q0 = c == 0 ? cfd::perturbed_state(em.n_nodes, stream, 0.1, 21)
                                            : cfd::perturbed_state(em.n_nodes, stream, 0.0, 1);
      std::vector<cfd::SteadyResult> results;
      std::vector<std::vector<double>> states;
      for (auto backend : {assembly::Backend::Cpu, assembly::Backend::Cuda}) {
        assembly::AssemblerOptions o;
        o.backend = backend;
        assembly::Assembler a(p, o);
        states.push_back(q0);
        cfd::SteadyOptions so;
        so.preconditioner = cfd::SteadyPreconditioner::multicolor_sgs;  // on both
        results.push_back(cfd::solve_steady(a, em, stream.gamma, states.back(), so));
        REQUIRE(results.back().converged);
      }
      MESSAGE("GPU:\n" << cfd::format_history(results[1]));
      // Explicit stepping on the device too: the same residuals as the host's.
      {
        std::vector<double> qe[2] = {q0, q0};
        cfd::SteadyResult e[2];
        for (int k = 0; k < 2; ++k) {
          assembly::AssemblerOptions o;
          o.backend = k == 0 ? assembly::Backend::Cpu : assembly::Backend::Cuda;
          assembly::Assembler a(p, o);
          e[k] = cfd::solve_steady_explicit(a, em, stream.gamma, qe[k], 0.9, 50, 1e-12);
        }
        REQUIRE(e[1].steps == e[0].steps);
        CHECK(e[1].final_residual == doctest::Approx(e[0].final_residual).epsilon(1e-9));
      }
      // Every storage (the general block CSR, the fused kernels' Adiag + Aoff by rows or in
      // edge-based storage) takes the same steps; the GPU's automatic one is one of them.
      MESSAGE("automatic storage on the GPU: " << cfd::storage_name(results[1].storage));
      CHECK(results[1].storage != cfd::JacobianStorage::automatic);
      CHECK(results[0].storage == cfd::JacobianStorage::block_csr);
      for (auto storage : {cfd::JacobianStorage::block_csr, cfd::JacobianStorage::split,
                           cfd::JacobianStorage::edges}) {
        CAPTURE(cfd::storage_name(storage));
        assembly::AssemblerOptions o;
        o.backend = assembly::Backend::Cuda;
        assembly::Assembler a(p, o);
        cfd::SteadyOptions so;
        so.preconditioner = cfd::SteadyPreconditioner::multicolor_sgs;
        so.storage = storage;
        std::vector<double> qs = q0;
        const cfd::SteadyResult rs = cfd::solve_steady(a, em, stream.gamma, qs, so);
        REQUIRE(rs.converged);
        CHECK(rs.storage == storage);
        CHECK(rs.history.size() == results[1].history.size());
        double off = 0;
        for (size_t i = 0; i < q0.size(); ++i) off = std::max(off, std::abs(qs[i] - states[1][i]));
        CHECK(off < 1e-10);
      }
      // ILU(0) is the CPU's: the GPU refuses it by name.
      {
        assembly::AssemblerOptions o;
        o.backend = assembly::Backend::Cuda;
        assembly::Assembler a(p, o);
        cfd::SteadyOptions so;
        so.preconditioner = cfd::SteadyPreconditioner::block_ilu0;
        std::vector<double> q = q0;
        CHECK_THROWS_WITH_AS(cfd::solve_steady(a, em, stream.gamma, q, so),
                             doctest::Contains("ILU(0)"), std::invalid_argument);
      }
      REQUIRE(results[0].history.size() == results[1].history.size());
      for (size_t k = 0; k < results[0].history.size(); ++k) {
        CAPTURE(k);
        // Relative residuals agree while they are far above round-off.
        const double rc = results[0].history[k].residual, rg = results[1].history[k].residual;
        if (rc > 1e-8 * results[0].initial_residual) CHECK(rg == doctest::Approx(rc).epsilon(1e-6));
      }
      double worst = 0;
      for (size_t i = 0; i < q0.size(); ++i)
        worst = std::max(worst, std::abs(states[0][i] - states[1][i]));
      CHECK(worst < 1e-10);  // both converged to |R| < 1e-10 |R0|: agreement to that level
    }
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("the storage tuner times every storage once, then reads its record" *
            test::needs_gpu()) {
    cfd::FreeStream fs;
    fs.mach = 0.5;
    fs.alpha_deg = 0;
    const cfd::TetMesh mesh = cfd::bump_channel_mesh(24, 2, 8);
    const cfd::EdgeMesh em = cfd::build_edge_mesh(mesh);
    assembly::Problem p = cfd::roe_problem(em, fs, cfd::bump_channel_boundary(em, mesh));
    const std::vector<double> q = cfd::free_stream_state(em.n_nodes, fs);
    assembly::AssemblerOptions o;
    o.backend = assembly::Backend::Cuda;
    assembly::Assembler a(p, o);
    const test::TempDir dir("storage_tuner");
    jit::TuningDb db(dir.path());
    const cfd::SteadyOptions so;
    const cfd::StorageChoice first = cfd::choose_storage(a, em, fs.gamma, q, so, db);
    CHECK_FALSE(first.from_record);
    REQUIRE(first.candidates.size() == 3);
    double best = first.candidates[0].iteration_ms;
    for (const cfd::StorageTiming& t : first.candidates) {
      MESSAGE(cfd::storage_name(t.storage)
              << ": " << t.iteration_ms << " ms per iteration (" << t.assembly_ms << " assembly, "
              << t.setup_ms << " set-up, " << t.krylov_ms << " Krylov)");
      CHECK(t.iteration_ms > 0);
      CHECK(t.assembly_ms > 0);
      CHECK(t.krylov_iterations == first.candidates[0].krylov_iterations);
      best = std::min(best, t.iteration_ms);
    }
    for (const cfd::StorageTiming& t : first.candidates)
      if (t.storage == first.storage) CHECK(t.iteration_ms == best);
    const cfd::StorageChoice second = cfd::choose_storage(a, em, fs.gamma, q, so, db);
    CHECK(second.from_record);
    CHECK(second.storage == first.storage);
    CHECK(second.candidates.empty());
    CHECK(db.list().size() == 1);
  }
}

// The method of manufactured solutions (examples/cfd/manufactured.h). The error is measured
// inside [0.25, 0.75]^3: at boundary nodes the scheme takes the boundary flux at the node, an
// O(1) truncation error on a layer one cell wide (as in any vertex-centred scheme), which slows
// the global norm's observed order on these meshes (0.77 from 8^3 to 32^3, against 0.83 and
// 0.88 inside).
TEST_CASE("manufactured solutions: the steady solution's error falls at first order") {
  const double gamma = 1.4;
  std::vector<double> errors;
  for (int n : {8, 16, 32}) {
    CAPTURE(n);
    const cfd::TetMesh mesh = cfd::box_tet_mesh(n, n, n);
    const cfd::EdgeMesh em = cfd::build_edge_mesh(mesh);
    assembly::Problem p = cfd::manufactured_problem(em, mesh, gamma);
    assembly::Assembler a(p, on_cpu());
    const std::vector<double> exact = cfd::manufactured_nodes(mesh, gamma);
    std::vector<double> q = exact;
    const cfd::SteadyResult r = cfd::solve_steady(a, em, gamma, q);
    REQUIRE(r.converged);
    double sum = 0, volume = 0;
    for (int64_t i = 0; i < em.n_nodes; ++i) {
      const double* x = &mesh.xyz[i * 3];
      bool inside = true;
      for (int d = 0; d < 3; ++d) inside = inside && x[d] >= 0.25 && x[d] <= 0.75;
      if (!inside) continue;
      double e2 = 0;
      for (int k = 0; k < kB; ++k)
        e2 += (q[i * kB + k] - exact[i * kB + k]) * (q[i * kB + k] - exact[i * kB + k]);
      sum += em.node_volume[i] * e2;
      volume += em.node_volume[i];
    }
    errors.push_back(std::sqrt(sum / volume));
    MESSAGE(n << "^3: " << r.history.size() << " steps, error " << errors.back());
  }
  for (size_t k = 1; k < errors.size(); ++k) {
    const double order = std::log2(errors[k - 1] / errors[k]);
    CAPTURE(order);
    CHECK(order > 0.8);
    CHECK(order < 1.3);
  }
}
