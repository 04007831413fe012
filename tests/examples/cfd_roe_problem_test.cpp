// The CFD residual as a Problem (examples/cfd/roe_problem.h): free-stream preservation on a
// closed mesh, the assembled FUN3D Jacobian against finite differences of the residual, the
// linearisation's order of accuracy, and GPU against host.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "backends/assembly/fused_assembly.h"
#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_problem.h"

using namespace dualjit;

namespace {

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

std::vector<double> uniform_state(int64_t n, const cfd::FreeStream& fs) {
  const auto q = fs.conservative();
  std::vector<double> s(n * 5);
  for (int64_t i = 0; i < n; ++i) std::copy(q.begin(), q.end(), s.begin() + i * 5);
  return s;
}

std::vector<double> random_direction(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> d(n);
  for (double& x : d) x = u(rng);
  return d;
}

// y = J x with J = Adiag + Aoff (FUN3D split, fp64).
std::vector<double> multiply(const mesh::SplitBlockCsr<double>& J, const std::vector<double>& x) {
  const int64_t n = static_cast<int64_t>(x.size() / 5);
  std::vector<double> y(x.size(), 0.0);
  const auto& pat = J.pattern();
  for (int64_t i = 0; i < n; ++i) {
    const double* d = J.diag_block(i);
    for (int r = 0; r < 5; ++r) {
      for (int c = 0; c < 5; ++c) y[i * 5 + r] += d[r * 5 + c] * x[i * 5 + c];
    }
    for (int64_t k = pat.row_ptr()[i]; k < pat.row_ptr()[i + 1]; ++k) {
      const double* b = &J.off.values[k * 25];
      const int64_t j = pat.col_idx()[k];
      for (int r = 0; r < 5; ++r) {
        for (int c = 0; c < 5; ++c) y[i * 5 + r] += b[r * 5 + c] * x[j * 5 + c];
      }
    }
  }
  return y;
}

}  // namespace

TEST_CASE("free-stream preservation: a uniform state has a zero residual on closed meshes") {
  cfd::FreeStream fs;
  fs.mach = 0.8;
  fs.alpha_deg = 5;
  fs.beta_deg = 2;
  for (const auto& mesh : {cfd::box_tet_mesh(4, 3, 5, 2.0, 1.0, 1.5),
                           cfd::read_gmsh(std::string(DUALJIT_TEST_DATA_DIR) + "/cube.msh")}) {
    const auto em = cfd::build_edge_mesh(mesh);
    assembly::Problem p = cfd::roe_problem(em, fs);
    const auto q = uniform_state(em.n_nodes, fs);
    // A single edge flux is O(|S|); preservation means cancellation to round-off.
    CHECK(max_abs(p.residual(q)) < 1e-13);
    for (auto strategy :
         {jit::AssemblyStrategy::ScatterAtomic, jit::AssemblyStrategy::GatherByColumn}) {
      assembly::FusedOptions o;
      o.strategy = strategy;
      o.jacobian = false;
      std::vector<double> r(q.size(), 0.0);
      auto unused = mesh::SplitBlockCsr<float>::zeros(p.off_pattern(), 5, 5);
      assembly::assemble_on_host(p, q, o, r, unused);
      CHECK(max_abs(r) < 1e-13);
    }
    // Without the far-field closure the boundary nodes are not in balance: the test can fail.
    assembly::Problem open = cfd::roe_problem(em, fs, /*with_boundary=*/false);
    CHECK(max_abs(open.residual(q)) > 1e-3);
  }
}

TEST_CASE("the FUN3D Jacobian equals central differences of the residual (dense)") {
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(2, 2, 3));
  assembly::Problem p = cfd::roe_problem(em);
  const auto q = cfd::perturbed_state(em.n_nodes, {}, 0.3, 11);
  const auto J = p.jacobian_split<double>(q);
  std::vector<double> r_fused(q.size(), 0.0);
  auto J_fused = mesh::SplitBlockCsr<double>::zeros(p.off_pattern(), 5, 5);
  assembly::assemble_on_host(p, q, assembly::FusedOptions{}, r_fused, J_fused);
  const int64_t n = em.n_nodes * 5;
  double worst = 0, worst_fused = 0;
  for (int64_t col = 0; col < n; ++col) {
    std::vector<double> e(n, 0.0);
    e[col] = 1.0;
    const double h = 1e-6 * std::max(1.0, std::abs(q[col]));
    std::vector<double> qp = q, qm = q;
    qp[col] += h;
    qm[col] -= h;
    const auto rp = p.residual(qp);
    const auto rm = p.residual(qm);
    const auto Je = multiply(J, e);
    const auto Jf = multiply(J_fused, e);
    for (int64_t row = 0; row < n; ++row) {
      const double fd = (rp[row] - rm[row]) / (2 * h);
      worst = std::max(worst, std::abs(Je[row] - fd) / (1 + std::abs(fd)));
      worst_fused = std::max(worst_fused, std::abs(Jf[row] - fd) / (1 + std::abs(fd)));
    }
  }
  CHECK(worst < 1e-7);
  CHECK(worst_fused < 1e-7);
  CHECK(max_abs(r_fused) > 1e-3);  // a state far from uniform: non-trivial residual
}

TEST_CASE("linearisation: one-sided error falls like eps, central like eps^2") {
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(3, 3, 3));
  assembly::Problem p = cfd::roe_problem(em);
  const auto q = cfd::perturbed_state(em.n_nodes, {}, 0.2, 12);
  const auto dq = random_direction(q.size(), 13);
  const auto J = p.jacobian_split<double>(q);
  const auto Jdq = multiply(J, dq);
  const auto r0 = p.residual(q);
  const auto error = [&](double eps, bool central) {
    std::vector<double> qp = q, qm = q;
    for (size_t i = 0; i < q.size(); ++i) qp[i] += eps * dq[i], qm[i] -= eps * dq[i];
    const auto rp = p.residual(qp);
    const auto rm = p.residual(qm);
    double e = 0;
    for (size_t i = 0; i < q.size(); ++i) {
      const double d = central ? (rp[i] - rm[i]) / 2 : rp[i] - r0[i];
      e = std::max(e, std::abs(d / eps - Jdq[i]));
    }
    return e;  // error of the difference quotient against J dQ
  };
  // The Roe flux is only piecewise smooth (|qn| of the contact wave, the entropy fix): eps is
  // kept small enough that no edge of this fixed state crosses a kink between the two steps.
  for (double eps : {1e-3, 5e-4}) {
    CAPTURE(eps);
    const double one = error(eps, false) / error(eps / 2, false);
    const double two = error(eps, true) / error(eps / 2, true);
    CHECK(one == doctest::Approx(2.0).epsilon(0.15));
    CHECK(two == doctest::Approx(4.0).epsilon(0.15));
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("GPU FUN3D assembly of the CFD problem equals the host, every strategy") {
    if (!cuda::driver_available()) {
      MESSAGE("skipped: no GPU (" << cuda::driver_unavailable_reason() << ")");
      return;
    }
    const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(10, 9, 8));
    assembly::Problem p = cfd::roe_problem(em);
    const auto q = cfd::perturbed_state(em.n_nodes, {}, 0.2, 14);
    const auto ref_r = p.residual(q);
    const auto ref = p.jacobian_split<double>(q);
    for (int s = 0; s < 3; ++s) {
      assembly::FusedOptions o;
      o.strategy =
          s == 2 ? jit::AssemblyStrategy::GatherByColumn : jit::AssemblyStrategy::ScatterAtomic;
      o.staged = s == 0;
      assembly::DeviceAssembly<double> d(p, o);
      d.set_state(q);
      d.run();
      const auto j = d.jacobian();
      const auto r = d.residual();
      double er = 0, ed = 0, eo = 0;
      for (size_t i = 0; i < r.size(); ++i) er = std::max(er, std::abs(r[i] - ref_r[i]));
      for (size_t i = 0; i < j.diag.size(); ++i)
        ed = std::max(ed, std::abs(j.diag[i] - ref.diag[i]));
      for (size_t i = 0; i < j.off.values.size(); ++i) {
        eo = std::max(eo, std::abs(j.off.values[i] - ref.off.values[i]));
      }
      CAPTURE(s);
      CHECK(er < 1e-12 * (1 + max_abs(ref_r)));
      CHECK(ed < 1e-12 * (1 + max_abs(ref.diag)));
      CHECK(eo < 1e-12 * (1 + max_abs(ref.off.values)));
    }
  }
}
