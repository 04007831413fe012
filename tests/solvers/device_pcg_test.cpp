// Block-Jacobi PCG on the GPU (solvers/device_pcg.h): its module compiles for sm_90 without a
// GPU; on a GPU it solves the cloth Hessian the Assembler leaves on the device, with pinned
// nodes, to the tolerance asked, agrees with the host PCG and the sparse Cholesky, and repeats
// bit for bit.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "backends/assembly/assembler.h"
#include "examples/mesh_energy/cloth_energy.h"
#include "jit/nvrtc_compiler.h"
#include "solver_problems.h"
#include "solvers/bsr_multiply.h"
#include "solvers/device_pcg.h"
#include "solvers/newton.h"
#include "solvers/objective.h"
#include "solvers/pinned.h"
#include "solvers/solver_error.h"
#include "solvers/sparse_cholesky.h"
#include "support/gpu.h"
#include "support/nvrtc_module.h"

using namespace dualjit;

namespace {

double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

}  // namespace

TEST_CASE("the device PCG module compiles under NVRTC for sm_90 without a GPU") {
  for (int B : {2, 3}) {
    CAPTURE(B);
    test::check_module_compiles("pcg", solvers::device_pcg_source(B),
                                {"dj_pcg_jacobi", "dj_pcg_start", "dj_pcg_spmv", "dj_pcg_update",
                                 "dj_pcg_direction", "dj_pcg_reduce"});
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("device PCG solves the cloth Hessian on the GPU with pinned nodes" *
            test::needs_gpu()) {
    const int n = 40;
    const auto grid = mesh_energy::cloth_grid(n);
    const int64_t nv = grid.mesh.n_vertices();
    std::mt19937_64 rng(31);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> x = grid.mesh.x;
    for (double& c : x) c += 0.3 / n * u(rng);
    assembly::Problem p = mesh_energy::cloth_problem(grid, grid.mesh.x);
    // Compressed springs make the exact Hessian indefinite: solve with the projected one.
    assembly::AssemblerOptions ao;
    ao.hessian_projection = {jit::ProjectionKind::Clamp, 1e-9};
    assembly::Assembler a(p, ao);
    a.set_state(x);
    const assembly::DeviceBsr h = a.run_hessian();
    std::vector<double> b(nv * 3);
    for (double& v : b) v = u(rng);
    solvers::PinnedDofs pins(nv, 3);
    pins.pin_node(0);
    pins.pin_node(n - 1);
    std::vector<double> mask(nv * 3, 1.0);
    for (int64_t d = 0; d < nv * 3; ++d)
      if (pins.is_pinned(d)) mask[d] = 0.0;
    const auto db = cuda::DeviceBuffer::from(b), dmask = cuda::DeviceBuffer::from(mask);
    cuda::DeviceBuffer dx(b.size() * sizeof(double));
    solvers::DevicePcg pcg(nv, 3);
    solvers::PcgOptions o;
    o.relative_tolerance = 1e-10;
    const auto r =
        pcg.solve(h, reinterpret_cast<const double*>(db.get()), reinterpret_cast<double*>(dx.get()),
                  reinterpret_cast<const double*>(dmask.get()), o);
    CHECK(r.converged);
    CHECK(r.iterations > 5);
    CHECK(r.relative_residual <= 1e-10);
    const auto xs = dx.to_vector<double>();
    // The free rows of A x equal b; pinned DOFs stay zero.
    mesh::BlockCsr<double> hm = a.hessian(x);
    pins.apply_identity(hm);
    std::vector<double> bz = b;
    pins.zero(bz);
    std::vector<double> ax(b.size());
    solvers::multiply(hm, xs, ax);
    CHECK(rel_diff(ax, bz) < 1e-9);
    for (int64_t d = 0; d < nv * 3; ++d)
      if (pins.is_pinned(d)) CHECK(xs[d] == 0.0);
    // Against the sparse Cholesky of the same (pinned) system.
    solvers::SparseCholesky chol;
    chol.factorize(hm);
    CHECK(rel_diff(xs, chol.solve(bz)) < 1e-8);
    // Bit-identical repeat; plain CG needs more iterations than block Jacobi.
    pcg.solve(h, reinterpret_cast<const double*>(db.get()), reinterpret_cast<double*>(dx.get()),
              reinterpret_cast<const double*>(dmask.get()), o);
    CHECK(dx.to_vector<double>() == xs);
    o.block_jacobi = false;
    o.max_iterations = 50000;  // plain CG on this stiff, light cloth needs many more
    const auto plain =
        pcg.solve(h, reinterpret_cast<const double*>(db.get()), reinterpret_cast<double*>(dx.get()),
                  reinterpret_cast<const double*>(dmask.get()), o);
    CHECK(plain.converged);
    CHECK(plain.iterations >= r.iterations);
    // A matrix of the wrong shape is refused, naming both.
    solvers::DevicePcg other(nv + 1, 3);
    CHECK_THROWS_WITH_AS(other.solve(h, nullptr, nullptr), doctest::Contains("expected a General"),
                         solvers::SolverError);
  }

  TEST_CASE(
      "newton with the GPU PCG: the cloth's minimum as the CPU's Cholesky finds it, from an "
      "indefinite start" *
      test::needs_gpu()) {
    test::SolverProblem s = test::cloth(12, 0.03, 7);
    solvers::NewtonOptions o;
    o.pinned = s.pinned;
    o.gradient_tolerance = 1e-11;
    o.relative_gradient_tolerance = 0;
    o.decrement_tolerance = 0;
    const solvers::SolveResult cpu = solvers::newton(*s.objective, s.start, o);
    assembly::Assembler gpu_a(*s.problem);  // the GPU (Auto), exact Hessian
    solvers::AssemblerObjective gpu_f(gpu_a);
    o.linear_solver = solvers::LinearSolver::DevicePcg;
    o.pcg.relative_tolerance = 1e-12;
    const solvers::SolveResult gpu = solvers::newton(gpu_f, s.start, o);
    INFO(solvers::format_log(gpu));
    CHECK(gpu.converged());
    CHECK(gpu.iterations.front().linear_iterations > 1);
    for (size_t i = 1; i < gpu.iterations.size(); ++i)
      CHECK(gpu.iterations[i].energy <= gpu.iterations[i - 1].energy);
    for (size_t i = 0; i < cpu.x.size(); ++i) {
      CHECK(gpu.x[i] == doctest::Approx(cpu.x[i]).epsilon(1e-8));
      if (s.pinned.is_pinned(int64_t(i))) CHECK(gpu.x[i] == s.start[i]);
    }
    // A CPU objective has no device Hessian: refused, naming newton.
    CHECK_THROWS_WITH_AS(solvers::newton(*s.objective, s.start, o), doctest::Contains("GPU PCG"),
                         solvers::SolverError);
  }
}
