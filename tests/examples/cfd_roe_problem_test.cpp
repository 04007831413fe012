// The CFD residual as a Problem (examples/cfd/roe_problem.h): free-stream preservation on
// closed meshes, the assembled FUN3D Jacobian against finite differences of the residual, the
// linearisation's order of accuracy, the entropy fix at sonic points, and agreement of the CPU
// backend, the reference evaluator, both fused host strategies and (on a GPU) CUDA.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstring>
#include <random>

#include "backends/assembly/fused_assembly.h"
#include "dsl/reference_evaluator.h"
#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_flux.h"
#include "examples/cfd/roe_problem.h"
#include "support/assembly.h"
#include "support/gpu.h"

using namespace dualjit;

namespace {

constexpr int kB = 5;  // conservative variables per node

template <class T>
double max_abs(const std::vector<T>& v) {
  double m = 0;
  for (T x : v) m = std::max(m, std::abs(double(x)));
  return m;
}

std::vector<double> uniform_state(int64_t n, const cfd::FreeStream& fs) {
  const auto q = fs.conservative();
  std::vector<double> s(n * kB);
  for (int64_t i = 0; i < n; ++i) std::copy(q.begin(), q.end(), s.begin() + i * kB);
  return s;
}

std::vector<double> random_direction(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> d(n);
  for (double& x : d) x = u(rng);
  return d;
}

// y = J x with J = Adiag + Aoff (FUN3D split).
template <class OffT>
std::vector<double> multiply(const mesh::SplitBlockCsr<OffT>& J, const std::vector<double>& x) {
  const int64_t n = static_cast<int64_t>(x.size() / kB);
  std::vector<double> y(x.size(), 0.0);
  const auto& pat = J.pattern();
  for (int64_t i = 0; i < n; ++i) {
    const double* d = J.diag_block(i);
    for (int r = 0; r < kB; ++r)
      for (int c = 0; c < kB; ++c) y[i * kB + r] += d[r * kB + c] * x[i * kB + c];
    for (int64_t k = pat.row_ptr()[i]; k < pat.row_ptr()[i + 1]; ++k) {
      const OffT* b = &J.off.values[k * kB * kB];
      const int64_t j = pat.col_idx()[k];
      for (int r = 0; r < kB; ++r)
        for (int c = 0; c < kB; ++c) y[i * kB + r] += double(b[r * kB + c]) * x[j * kB + c];
    }
  }
  return y;
}

// Largest |J - FD| / (1 + |FD|) over the dense matrix, FD the central difference of the
// residual column by column (step relative to the state component).
template <class... Jacobians>
std::array<double, sizeof...(Jacobians)> worst_against_central_differences(
    assembly::Problem& p, const std::vector<double>& q, const Jacobians&... J) {
  const size_t n = q.size();
  std::array<double, sizeof...(Jacobians)> worst{};
  for (size_t col = 0; col < n; ++col) {
    std::vector<double> e(n, 0.0);
    e[col] = 1.0;
    const double h = 1e-6 * std::max(1.0, std::abs(q[col]));
    std::vector<double> qp = q, qm = q;
    qp[col] += h;
    qm[col] -= h;
    const auto rp = test::serial(p).residual(qp);
    const auto rm = test::serial(p).residual(qm);
    const std::array<std::vector<double>, sizeof...(Jacobians)> Je = {multiply(J, e)...};
    for (size_t row = 0; row < n; ++row) {
      const double fd = (rp[row] - rm[row]) / (2 * h);
      for (size_t m = 0; m < Je.size(); ++m)
        worst[m] = std::max(worst[m], std::abs(Je[m][row] - fd) / (1 + std::abs(fd)));
    }
  }
  return worst;
}

// The element's active inputs gathered from the node field, as the assembly gathers them.
std::vector<double> element_inputs(const assembly::Term& t, int64_t e,
                                   const std::vector<double>& q) {
  std::vector<double> in;
  const int slots = static_cast<int>(t.kernel->n_inputs() / kB);
  for (int s = 0; s < slots; ++s) {
    const int v = t.input_vertex.empty() ? s : t.input_vertex[s];
    const int32_t node = t.elements.vertex(e, v);
    in.insert(in.end(), &q[node * kB], &q[node * kB] + kB);
  }
  return in;
}

std::vector<double> element_params(const assembly::Term& t, int64_t e) {
  const size_t np = t.params.size() / t.elements.size();
  return std::vector<double>(t.params.begin() + e * np, t.params.begin() + (e + 1) * np);
}

// dF/dinput by the complex step through the reference evaluator (branches and |x| follow the
// real part): exact to round-off, independent of both dual implementations.
std::vector<double> complex_step_jacobian(const Kernel& k, const std::vector<double>& in,
                                          const std::vector<double>& params,
                                          const std::vector<double>& uniforms) {
  const int n_in = k.n_inputs(), n_out = k.n_outputs();
  const double h = 1e-30;
  std::vector<double> J(n_out * n_in);
  for (int j = 0; j < n_in; ++j) {
    std::vector<std::complex<double>> z(in.begin(), in.end());
    z[j] += std::complex<double>(0, h);
    const auto f = evaluate_graph<std::complex<double>>(k, z, params, uniforms);
    for (int i = 0; i < n_out; ++i) J[i * n_in + j] = f[i].imag() / h;
  }
  return J;
}

// Roe-averaged normal velocity and speed of sound of an edge (the quantities the entropy fix
// looks at), in plain arithmetic.
struct Acoustic {
  double qn, c;
};
Acoustic roe_average(const double* ql, const double* qr, const double* S, double gamma) {
  const auto prim = [&](const double* q, double* u, double& H) {
    for (int d = 0; d < 3; ++d) u[d] = q[1 + d] / q[0];
    const double p = (gamma - 1) * (q[4] - 0.5 * (q[1] * u[0] + q[2] * u[1] + q[3] * u[2]));
    H = (q[4] + p) / q[0];
  };
  double ul[3], ur[3], hl, hr;
  prim(ql, ul, hl);
  prim(qr, ur, hr);
  const double r = std::sqrt(qr[0] / ql[0]), wl = 1 / (1 + r), wr = r * wl;
  const double area = std::sqrt(S[0] * S[0] + S[1] * S[1] + S[2] * S[2]);
  double u[3], q2 = 0, qn = 0;
  for (int d = 0; d < 3; ++d) {
    u[d] = ul[d] * wl + ur[d] * wr;
    q2 += u[d] * u[d];
    qn += u[d] * S[d] / area;
  }
  const double H = hl * wl + hr * wr;
  return {qn, std::sqrt((gamma - 1) * (H - 0.5 * q2))};
}

// Distance, relative to c, of the state from the kinks of the Roe flux over every element of
// the problem (interior edges and far-field nodes): |qn| = 0 (contact wave) and
// |qn -+ c| = delta (edges of the entropy-fix window). Difference checks need it well above
// the perturbation they apply.
double kink_distance(const assembly::Problem& p, const std::vector<double>& q,
                     const cfd::FreeStream& fs, double entropy_fix = 0.1) {
  const auto qinf = fs.conservative();
  double m = INFINITY;
  for (size_t term = 0; term < p.n_terms(); ++term) {
    const assembly::Term& t = p.term(term);
    for (int64_t e = 0; e < t.elements.size(); ++e) {
      const double* ql = &q[t.elements.vertex(e, 0) * kB];
      const double* qr = t.elements.k == 2 ? &q[t.elements.vertex(e, 1) * kB] : qinf.data();
      const auto w = roe_average(ql, qr, &t.params[e * 3], fs.gamma);
      const double delta = entropy_fix * w.c;
      m = std::min({m, std::abs(w.qn) / w.c, std::abs(std::abs(w.qn - w.c) - delta) / w.c,
                    std::abs(std::abs(w.qn + w.c) - delta) / w.c});
    }
  }
  return m;
}

cfd::TetMesh randomly_renumbered(cfd::TetMesh mesh, uint64_t seed) {
  cfd::renumber_nodes(mesh, cfd::random_permutation(mesh.n_nodes, seed));
  return mesh;
}

}  // namespace

TEST_CASE("free-stream preservation: a uniform state has a zero residual on closed meshes") {
  cfd::FreeStream fs;
  fs.mach = 0.8;
  fs.alpha_deg = 5;
  fs.beta_deg = 2;
  const std::vector<std::pair<std::string, cfd::TetMesh>> meshes = {
      {"box 3x3x4", cfd::box_tet_mesh(3, 3, 4)},
      {"stretched box 4x3x5", cfd::box_tet_mesh(4, 3, 5, 2.0, 1.0, 1.5)},
      {"box 3x3x4, random node order", randomly_renumbered(cfd::box_tet_mesh(3, 3, 4), 5)},
      {"cube.msh", cfd::read_gmsh(std::string(DUALJIT_TEST_DATA_DIR) + "/cube.msh")}};
  for (const auto& [name, mesh] : meshes) {
    CAPTURE(name);
    const auto em = cfd::build_edge_mesh(mesh);
    assembly::Problem p = cfd::roe_problem(em, fs);
    REQUIRE(p.n_terms() == 2);  // interior edges and the far-field closure
    const auto q = uniform_state(em.n_nodes, fs);
    // Preservation is cancellation of O(|F_edge|) terms: measure against one edge's flux.
    const double edge_flux = max_abs(test::serial(p).element_results(0, Mode::Value, q).values);
    REQUIRE(edge_flux > 1e-2);
    const double tol = 1e-14 * edge_flux;
    const auto r = test::serial(p).residual(q);
    MESSAGE(name << ": max |R| / max |F_edge| = " << max_abs(r) / edge_flux);
    CHECK(max_abs(r) < tol);
    for (const char* strategy : {"scatter-atomic", "gather-by-column"}) {
      CAPTURE(strategy);
      assembly::FusedOptions o;
      o.strategy = strategy;
      o.jacobian = false;
      std::vector<double> rf(q.size(), 0.0);
      auto unused = mesh::SplitBlockCsr<float>::zeros(p.off_pattern(), kB, kB);
      test::assemble_on_cpu(p, q, o, rf, unused);
      CHECK(max_abs(rf) < tol);
    }

    // The test can fail: leave out one node's far-field closure and that node, and only it,
    // is out of balance by the free-stream flux through its boundary area.
    int64_t hole = -1;
    for (int64_t i = 0; i < em.n_nodes && hole < 0; ++i)
      if (em.bnode_area[i * 3] != 0 || em.bnode_area[i * 3 + 1] != 0 ||
          em.bnode_area[i * 3 + 2] != 0)
        hole = i;
    REQUIRE(hole >= 0);
    cfd::EdgeMesh holed = em;
    std::fill_n(&holed.bnode_area[hole * 3], 3, 0.0);
    assembly::Problem leaky = cfd::roe_problem(holed, fs);
    const auto rl = test::serial(leaky).residual(q);
    double at_hole = 0, elsewhere = 0;
    for (int64_t i = 0; i < em.n_nodes; ++i) {
      double& worst = i == hole ? at_hole : elsewhere;
      for (int k = 0; k < kB; ++k) worst = std::max(worst, std::abs(rl[i * kB + k]));
    }
    CHECK(at_hole > 1e-3 * edge_flux);
    CHECK(elsewhere < tol);
    assembly::Problem open = cfd::roe_problem(em, fs, /*with_boundary=*/false);
    CHECK(max_abs(test::serial(open).residual(q)) > 1e-3 * edge_flux);
  }
}

TEST_CASE("the FUN3D Jacobian equals central differences of the residual (dense, far field)") {
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(2, 2, 3));
  assembly::Problem p = cfd::roe_problem(em);
  REQUIRE(p.n_terms() == 2);
  const auto q = cfd::perturbed_state(em.n_nodes, {}, 0.3, 11);
  const auto J = test::serial(p).jacobian_split<double>(q);
  mesh::SplitBlockCsr<double> J_fused[2];
  std::vector<double> r_fused[2];
  for (int s = 0; s < 2; ++s) {
    assembly::FusedOptions o;
    o.strategy = s == 0 ? "scatter-atomic" : "gather-by-column";
    r_fused[s].assign(q.size(), 0.0);
    J_fused[s] = mesh::SplitBlockCsr<double>::zeros(p.off_pattern(), kB, kB);
    test::assemble_on_cpu(p, q, o, r_fused[s], J_fused[s]);
  }
  const auto worst = worst_against_central_differences(p, q, J, J_fused[0], J_fused[1]);
  CAPTURE(worst[0]);
  CAPTURE(worst[1]);
  CAPTURE(worst[2]);
  CHECK(worst[0] < 1e-7);
  CHECK(worst[1] < 1e-7);
  CHECK(worst[2] < 1e-7);
  CHECK(max_abs(r_fused[0]) > 1e-3);  // a state far from uniform: non-trivial residual
  // The far-field term's Jacobian is part of what was checked, not negligible next to it.
  assembly::Problem open = cfd::roe_problem(em, {}, /*with_boundary=*/false);
  const auto J_open = test::serial(open).jacobian_split<double>(q);
  double boundary_part = 0;
  for (size_t i = 0; i < J.diag.size(); ++i)
    boundary_part = std::max(boundary_part, std::abs(J.diag[i] - J_open.diag[i]));
  CHECK(boundary_part > 1e-2 * max_abs(J.diag));
}

TEST_CASE("linearisation: one-sided error falls like eps, central like eps^2") {
  cfd::FreeStream fs;
  fs.mach = 0.7;
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(3, 3, 4));
  assembly::Problem p = cfd::roe_problem(em, fs);
  const auto q = cfd::perturbed_state(em.n_nodes, fs, 0.2, 13);
  // Under eps dQ (|dQ_i| <= 1, rho >= 0.8) the Roe-averaged qn / c moves by at most ~4 eps:
  // the largest eps below keeps every element on its side of every kink.
  const double largest_eps = 8e-4;
  REQUIRE(kink_distance(p, q, fs) > 8 * largest_eps);
  const auto dq = random_direction(q.size(), 14);
  const auto J = test::serial(p).jacobian_split<double>(q);
  const auto Jdq = multiply(J, dq);
  const auto r0 = test::serial(p).residual(q);
  const auto error = [&](double eps, bool central) {
    std::vector<double> qp = q, qm = q;
    for (size_t i = 0; i < q.size(); ++i) qp[i] += eps * dq[i], qm[i] -= eps * dq[i];
    const auto rp = test::serial(p).residual(qp);
    const auto rm = test::serial(p).residual(qm);
    double e = 0;
    for (size_t i = 0; i < q.size(); ++i) {
      const double d = central ? (rp[i] - rm[i]) / 2 : rp[i] - r0[i];
      e = std::max(e, std::abs(d / eps - Jdq[i]));
    }
    return e;  // error of the difference quotient against J dQ
  };
  // The Roe flux is only piecewise smooth (|qn| of the contact wave, the entropy fix): eps stays
  // small enough that no edge of this state crosses a kink, and large enough that round-off
  // (~1e-16 |R| / eps) stays far below the central error (~eps^2).
  double previous_one = error(largest_eps, false), previous_two = error(largest_eps, true);
  for (double eps : {largest_eps / 2, largest_eps / 4, largest_eps / 8, largest_eps / 16}) {
    CAPTURE(eps);
    const double one = error(eps, false), two = error(eps, true);
    CAPTURE(one);
    CAPTURE(two);
    CHECK(previous_one / one == doctest::Approx(2.0).epsilon(0.05));
    CHECK(previous_two / two == doctest::Approx(4.0).epsilon(0.05));
    previous_one = one;
    previous_two = two;
  }
}

TEST_CASE("CPU backend local Jacobians equal the reference evaluator (edges and far-field nodes)") {
  const auto em = cfd::build_edge_mesh(randomly_renumbered(cfd::box_tet_mesh(3, 3, 4), 8));
  assembly::Problem p = cfd::roe_problem(em);
  const auto q = cfd::perturbed_state(em.n_nodes, {}, 0.3, 21);
  for (size_t term = 0; term < p.n_terms(); ++term) {
    const assembly::Term& t = p.term(term);
    CAPTURE(t.name);
    const int n_in = t.kernel->n_inputs(), n_out = t.kernel->n_outputs();
    const auto local = test::serial(p).element_results(term, Mode::Jacobian, q);
    const int64_t ne = t.elements.size();
    REQUIRE(local.first.size() == static_cast<size_t>(ne * n_out * n_in));
    double worst = 0, worst_value = 0, scale = 0;
    for (int i = 0; i < 40; ++i) {
      const int64_t e = i * (ne - 1) / 39;  // spread over the set
      const auto in = element_inputs(t, e, q);
      const auto params = element_params(t, e);
      for (int width : {1, 5, n_in}) {
        const auto ref = evaluate_jacobian(*t.kernel, {in, params, t.uniforms}, width);
        for (int k = 0; k < n_out * n_in; ++k) {
          worst = std::max(worst, std::abs(local.first[e * n_out * n_in + k] - ref.jacobian[k]) /
                                      (1 + std::abs(ref.jacobian[k])));
          scale = std::max(scale, std::abs(ref.jacobian[k]));
        }
        for (int k = 0; k < n_out; ++k)
          worst_value =
              std::max(worst_value, std::abs(local.values[e * n_out + k] - ref.values[k]) /
                                        (1 + std::abs(ref.values[k])));
      }
    }
    CAPTURE(worst);
    CAPTURE(worst_value);
    CHECK(scale > 1e-2);
    CHECK(worst < 1e-12);
    CHECK(worst_value < 1e-13);
  }
}

TEST_CASE("fused host assembly: scatter equals gather-by-column and the serial assembly") {
  const auto em =
      cfd::build_edge_mesh(cfd::read_gmsh(std::string(DUALJIT_TEST_DATA_DIR) + "/cube.msh"));
  assembly::Problem p = cfd::roe_problem(em);
  const auto q = cfd::perturbed_state(em.n_nodes, {}, 0.3, 22);
  const auto r_serial = test::serial(p).residual(q);
  const auto J_serial = test::serial(p).jacobian_split<double>(q);
  std::vector<double> r[2];
  mesh::SplitBlockCsr<double> J[2];
  for (int s = 0; s < 2; ++s) {
    assembly::FusedOptions o;
    o.strategy = s == 0 ? "scatter-atomic" : "gather-by-column";
    r[s].assign(q.size(), 0.0);
    J[s] = mesh::SplitBlockCsr<double>::zeros(p.off_pattern(), kB, kB);
    test::assemble_on_cpu(p, q, o, r[s], J[s]);
  }
  // Per array: how many entries are bit-identical, and the largest difference of the rest
  // relative to the array's magnitude (summation order is all that may differ).
  const auto compare = [](const std::vector<double>& a, const std::vector<double>& b) {
    REQUIRE(a.size() == b.size());
    size_t identical = 0;
    double diff = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      if (std::memcmp(&a[i], &b[i], sizeof(double)) == 0)
        ++identical;
      else
        diff = std::max(diff, std::abs(a[i] - b[i]));
    }
    MESSAGE(identical << " of " << a.size() << " bit-identical, max other diff " << diff);
    CHECK(diff <= 1e-12 * max_abs(b));
  };
  REQUIRE(max_abs(r_serial) > 1e-3);
  REQUIRE(max_abs(J_serial.off.values) > 1e-2);
  compare(r[0], r[1]);
  compare(J[0].diag, J[1].diag);
  compare(J[0].off.values, J[1].off.values);
  compare(r[1], r_serial);
  compare(J[1].diag, J_serial.diag);
  compare(J[1].off.values, J_serial.off.values);
}

TEST_CASE("entropy fix at sonic points: derivatives equal complex step and central differences") {
  // Mach 1 along x with 2% random perturbations: on the x-aligned edges the Roe-averaged
  // qn - c is within the fix window |lambda| < 0.1 c.
  cfd::FreeStream fs;
  fs.mach = 1.0;
  fs.alpha_deg = 0;
  const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(2, 2, 2));
  assembly::Problem p = cfd::roe_problem(em, fs);
  const auto q = cfd::perturbed_state(em.n_nodes, fs, 0.02, 23);
  const assembly::Term& edges = p.term(0);
  std::vector<int64_t> sonic;
  for (int64_t e = 0; e < edges.elements.size(); ++e) {
    const int32_t a = edges.elements.vertex(e, 0), b = edges.elements.vertex(e, 1);
    const auto w = roe_average(&q[a * kB], &q[b * kB], &em.area[e * 3], fs.gamma);
    if (std::abs(std::abs(w.qn) - w.c) < 0.1 * w.c) sonic.push_back(e);
  }
  MESSAGE(sonic.size() << " of " << edges.elements.size() << " edges in the entropy-fix window");
  REQUIRE(sonic.size() >= 5);
  // Central differences below step by 1e-6: no element may sit closer than that to a kink
  // (here the contact wave's |qn| of the edges across the flow is the closest).
  REQUIRE(kink_distance(p, q, fs) > 1e-5);

  // Local Jacobians of the CPU backend against the complex step on every sonic edge.
  const auto local = test::serial(p).element_jacobians(0, q);
  double worst_local = 0;
  for (int64_t e : sonic) {
    const auto cs = complex_step_jacobian(*edges.kernel, element_inputs(edges, e, q),
                                          element_params(edges, e), edges.uniforms);
    for (size_t k = 0; k < cs.size(); ++k)
      worst_local =
          std::max(worst_local, std::abs(local[e * cs.size() + k] - cs[k]) / (1 + std::abs(cs[k])));
  }
  CAPTURE(worst_local);
  CHECK(worst_local < 1e-12);

  // The assembled Jacobian (with the far field, also at Mach 1) against central differences.
  const auto J = test::serial(p).jacobian_split<double>(q);
  const auto worst = worst_against_central_differences(p, q, J);
  CAPTURE(worst[0]);
  CHECK(worst[0] < 1e-7);

  // Without the fix (a window too narrow to reach) the local derivatives on these edges differ:
  // the fixed branch is what was checked.
  const Kernel unfixed("roe_flux_no_fix", [](KernelBuilder& kb) {
    const auto QL = kb.input("QL", 5);
    const auto QR = kb.input("QR", 5);
    const auto S = kb.param_vec<3>("S");
    kb.output("F", cfd::roe_flux(QL, QR, S, kb.uniform("gamma"), /*entropy_fix=*/1e-9));
  });
  double fix_effect = 0, scale = 0;
  for (int64_t e : sonic) {
    const auto in = element_inputs(edges, e, q);
    const auto params = element_params(edges, e);
    const auto cs = complex_step_jacobian(unfixed, in, params, edges.uniforms);
    for (size_t k = 0; k < cs.size(); ++k) {
      fix_effect = std::max(fix_effect, std::abs(local[e * cs.size() + k] - cs[k]));
      scale = std::max(scale, std::abs(cs[k]));
    }
  }
  CAPTURE(fix_effect);
  CAPTURE(scale);
  CHECK(fix_effect > 1e-5 * scale);
}

TEST_SUITE("gpu") {
  TEST_CASE("GPU FUN3D assembly of the CFD problem equals the host, every strategy" *
            test::needs_gpu()) {
    const auto em = cfd::build_edge_mesh(cfd::box_tet_mesh(10, 9, 8));
    assembly::Problem p = cfd::roe_problem(em);
    const auto q = cfd::perturbed_state(em.n_nodes, {}, 0.2, 14);
    const auto ref_r = test::serial(p).residual(q);
    const auto ref = test::serial(p).jacobian_split<double>(q);
    for (int s = 0; s < 3; ++s) {
      assembly::FusedOptions o;
      o.strategy = s == 0 ? "staged-scatter" : s == 1 ? "scatter-atomic" : "staged-gather";
      test::GpuSplit<double> d(p, o);
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
