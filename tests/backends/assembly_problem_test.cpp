// Problems assembled on the host: every matrix against finite differences of the assembled
// vector it differentiates, energies against sums, HVPs against H v, bad input.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <random>

#include "backends/assembly/problem.h"
#include "backends/mesh/export.h"
#include "dsl/reference_evaluator.h"
#include "support/assembly.h"
#include "support/element_problems.h"
#include "support/test_kernels.h"

using namespace dualjit;
using assembly::Problem;
using assembly::Term;

namespace {

Eigen::MatrixXd dense(const mesh::BlockCsr<double>& m) {
  return Eigen::MatrixXd(mesh::to_eigen(m));
}

// Central differences of f: R^n -> R^m, column by column.
template <class F>
Eigen::MatrixXd fd_jacobian(F&& f, std::vector<double> x, double h = 1e-6) {
  const size_t n = x.size();
  const size_t m = f(x).size();
  Eigen::MatrixXd J(m, n);
  for (size_t j = 0; j < n; ++j) {
    auto xp = x, xm = x;
    xp[j] += h;
    xm[j] -= h;
    const auto fp = f(xp), fm = f(xm);
    for (size_t i = 0; i < m; ++i) J(i, j) = (fp[i] - fm[i]) / (2 * h);
  }
  return J;
}

double rel_diff(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).norm() / std::max(1.0, b.norm());
}

std::vector<double> roe_state(int64_t n_nodes, std::mt19937_64& rng) {
  const auto data = test::data_for("roe_flux");
  std::vector<double> q(n_nodes * 5);
  for (int64_t i = 0; i < n_nodes; ++i) {
    for (int c = 0; c < 5; ++c) q[i * 5 + c] = data.input(c, rng);
  }
  return q;
}

Problem roe_problem(int64_t n_nodes, int64_t n_edges, std::mt19937_64& rng) {
  Problem p(n_nodes, 5);
  Term t;
  t.name = "interior";
  t.kernel = std::make_shared<Kernel>(cfd::roe_flux_kernel());
  t.elements = test::random_edges(n_nodes, n_edges, rng);
  t.output_scatter = {{{0, 1.0}, {1, -1.0}}};  // +F at v0, -F at v1
  std::uniform_real_distribution<double> a(-1.0, 1.0);
  for (int64_t e = 0; e < n_edges * 3; ++e) t.params.push_back(a(rng));
  t.uniforms = {1.4};
  p.add_term(std::move(t));
  return p;
}

}  // namespace

TEST_CASE("residual Jacobian equals finite differences of the assembled residual") {
  std::mt19937_64 rng(21);
  Problem p = roe_problem(9, 20, rng);
  const auto q = roe_state(9, rng);
  const Eigen::MatrixXd J = dense(test::serial(p).jacobian(q));
  const Eigen::MatrixXd fd =
      fd_jacobian([&](const std::vector<double>& x) { return test::serial(p).residual(x); }, q);
  CHECK(rel_diff(J, fd) < 1e-7);
  CHECK(J.norm() > 1.0);  // not a matrix of zeros

  // FUN3D layout: fp64 diagonal blocks apart, off-diagonal blocks in fp32 and in fp64.
  const auto split32 = test::serial(p).jacobian_split<float>(q);
  const auto split64 = test::serial(p).jacobian_split<double>(q);
  const Eigen::MatrixXd d32(mesh::to_eigen(split32)), d64(mesh::to_eigen(split64));
  CHECK(rel_diff(d64, J) < 1e-14);
  CHECK(rel_diff(d32, J) < 1e-6);
  for (int64_t i = 0; i < 9; ++i) {
    for (int r = 0; r < 25; ++r) CHECK(split32.diag_block(i)[r] == J(i * 5 + r / 5, i * 5 + r % 5));
  }
}

TEST_CASE("linearisation: J dQ against R(Q + eps dQ) - R(Q), error falling like eps^2") {
  std::mt19937_64 rng(22);
  Problem p = roe_problem(30, 90, rng);
  const auto q = roe_state(30, rng);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> dq(q.size());
  for (double& x : dq) x = u(rng);
  const Eigen::MatrixXd J = dense(test::serial(p).jacobian(q));
  const Eigen::VectorXd jdq = J * Eigen::Map<const Eigen::VectorXd>(dq.data(), dq.size());
  double prev = 0;
  for (double eps : {1e-2, 1e-3}) {
    auto qp = q, qm = q;
    for (size_t i = 0; i < q.size(); ++i) qp[i] += eps * dq[i], qm[i] -= eps * dq[i];
    const auto rp = test::serial(p).residual(qp), rm = test::serial(p).residual(qm);
    Eigen::VectorXd central(q.size());
    for (size_t i = 0; i < q.size(); ++i) central[i] = (rp[i] - rm[i]) / (2 * eps);
    const double err = (central - jdq).norm() / jdq.norm();
    if (prev > 0) CHECK(err < prev * 0.05);  // 10x smaller eps: ~100x smaller error
    prev = err;
  }
}

TEST_CASE("energy terms: energy, gradient, Hessian, HVP, symmetric storage") {
  std::mt19937_64 rng(23);
  const int64_t n = 10;
  Problem p(n, 3);
  Term springs;
  springs.name = "springs";
  springs.kernel = std::make_shared<Kernel>(test::spring_kernel());
  springs.elements = test::random_edges(n, 25, rng);
  springs.energy = true;
  std::uniform_real_distribution<double> len(0.5, 1.5), pos(-1.0, 1.0);
  for (int e = 0; e < 25; ++e) springs.params.push_back(len(rng));
  springs.uniforms = {30.0};
  p.add_term(std::move(springs));
  // A per-vertex term over the same field: a gravity-like potential with an anchor.
  Term anchor;
  anchor.name = "anchor";
  anchor.kernel = std::make_shared<Kernel>("anchor", [](KernelBuilder& kb) {
    auto x = kb.input_vec<3>("x");
    auto m = kb.param("mass", 1);
    kb.output("e", m[0] * (9.81 * x[2] + 0.5 * dot(x, x) * x[0] * x[0]));
  });
  anchor.elements = {"vertices", 1, {}};
  for (int32_t i = 0; i < n; ++i)
    anchor.elements.conn.push_back(i), anchor.params.push_back(len(rng));
  anchor.energy = true;
  p.add_term(std::move(anchor));

  std::vector<double> x(n * 3), v(n * 3);
  for (double& c : x) c = pos(rng);
  for (double& c : v) c = pos(rng);
  const auto g = test::serial(p).gradient(x);
  const Eigen::MatrixXd fd_g = fd_jacobian(
      [&](const std::vector<double>& y) { return std::vector<double>{test::serial(p).energy(y)}; },
      x);
  CHECK(rel_diff(Eigen::Map<const Eigen::MatrixXd>(g.data(), 1, g.size()), fd_g) < 1e-7);

  const Eigen::MatrixXd H = dense(test::serial(p).hessian(x));
  const Eigen::MatrixXd fd_h =
      fd_jacobian([&](const std::vector<double>& y) { return test::serial(p).gradient(y); }, x);
  CHECK(rel_diff(H, fd_h) < 1e-7);
  CHECK(rel_diff(H, H.transpose()) < 1e-14);
  const Eigen::MatrixXd Hu(mesh::to_eigen(test::serial(p).hessian(x, mesh::Symmetry::Upper)));
  CHECK(rel_diff(Hu, H) < 1e-14);

  const auto hv = test::serial(p).hvp(x, v);
  const Eigen::VectorXd Hv = H * Eigen::Map<const Eigen::VectorXd>(v.data(), v.size());
  CHECK((Eigen::Map<const Eigen::VectorXd>(hv.data(), hv.size()) - Hv).norm() < 1e-12 * Hv.norm());
}

TEST_CASE("energy equals the sum of element energies; dense element blocks in both orders") {
  std::mt19937_64 rng(24);
  Problem p = roe_problem(6, 7, rng);
  const auto q = roe_state(6, rng);
  const auto cell = test::serial(p).element_jacobians(0, q, assembly::BlockOrder::CellMajor);
  const auto comp = test::serial(p).element_jacobians(0, q, assembly::BlockOrder::ComponentMajor);
  REQUIRE(cell.size() == 7 * 50);
  for (int e = 0; e < 7; ++e) {
    for (int i = 0; i < 50; ++i) CHECK(comp[i * 7 + e] == cell[e * 50 + i]);
  }
  // Over three warps' elements, the last warp's partial, both orders from the kernel's stages
  // (jit::FirstStores), each the element-major kernel's derivatives.
  Problem big = roe_problem(40, 70, rng);
  const auto qb = roe_state(40, rng);
  const auto major = test::serial(big).element_results(0, Mode::Jacobian, qb).first;
  const auto big_cell = test::serial(big).element_jacobians(0, qb, assembly::BlockOrder::CellMajor);
  const auto big_comp =
      test::serial(big).element_jacobians(0, qb, assembly::BlockOrder::ComponentMajor);
  REQUIRE(major.size() == 70 * 50);
  CHECK(big_cell == major);
  for (int e = 0; e < 70; ++e) {
    for (int i = 0; i < 50; ++i) CHECK(big_comp[i * 70 + e] == major[e * 50 + i]);
  }
  // Column chunks store no single range: tiles, then one pass, give the same blocks.
  assembly::HostElementAssembly columns(big, /*width=*/3);
  CHECK(columns.element_jacobians(0, qb, assembly::BlockOrder::CellMajor) == major);
  const auto tiled_comp = columns.element_jacobians(0, qb, assembly::BlockOrder::ComponentMajor);
  CHECK(tiled_comp == big_comp);
  // Cell-major columns, each block column-major, from tiles too.
  const auto big_columns =
      test::serial(big).element_jacobians(0, qb, assembly::BlockOrder::CellMajorColumns);
  const int no = big.term(0).kernel->n_outputs(), ni = big.term(0).kernel->n_inputs();
  REQUIRE(big_columns.size() == major.size());
  REQUIRE(no * ni == 50);
  for (int e = 0; e < 70; ++e)
    for (int r = 0; r < no; ++r)
      for (int c = 0; c < ni; ++c)
        CHECK(big_columns[e * 50 + c * no + r] == major[e * 50 + r * ni + c]);
  CHECK(columns.element_jacobians(0, qb, assembly::BlockOrder::CellMajorColumns) == big_columns);
  REQUIRE(!columns.kernels().empty());
  for (const cpu::CpuKernel* k : columns.kernels())
    CHECK(k->lowered().options.first_stores == jit::FirstStores::Tiled);
  Problem s(4, 3);
  Term t;
  t.name = "springs";
  t.kernel = std::make_shared<Kernel>(test::spring_kernel());
  t.elements = {"edges", 2, {0, 1, 1, 2, 2, 3, 3, 0}};
  t.params = {1.0, 1.1, 0.9, 1.2};
  t.uniforms = {10.0};
  t.energy = true;
  s.add_term(t);
  const std::vector<double> x = {0, 0, 0, 1.2, 0.1, 0, 1.1, 1.0, 0.2, -0.1, 0.9, 0};
  double sum = 0;
  for (int e = 0; e < 4; ++e) {
    std::vector<double> xe;
    for (int v = 0; v < 2; ++v) {
      for (int c = 0; c < 3; ++c) xe.push_back(x[t.elements.conn[2 * e + v] * 3 + c]);
    }
    const double prm[1] = {t.params[e]};
    sum += evaluate_values(*t.kernel, {xe, prm, t.uniforms})[0];
  }
  CHECK(test::serial(s).energy(x) == doctest::Approx(sum).epsilon(1e-14));
}

TEST_CASE("bad input is rejected naming the term and the first offending element") {
  std::mt19937_64 rng(25);
  Problem p(5, 5);
  Term t;
  t.name = "faces";
  t.kernel = std::make_shared<Kernel>(cfd::roe_flux_kernel());
  t.elements = {"edges", 2, {0, 1, 1, 7}};
  t.output_scatter = {{{0, 1.0}, {1, -1.0}}};
  t.params.assign(6, 0.5);
  t.uniforms = {1.4};
  CHECK_THROWS_WITH_AS(p.add_term(t), doctest::Contains("term 'faces'"), assembly::ProblemError);
  CHECK_THROWS_WITH_AS(p.add_term(t), doctest::Contains("7"), assembly::ProblemError);
  t.elements.conn = {0, 1, 1, 1};
  CHECK_THROWS_WITH_AS(p.add_term(t), doctest::Contains("term 'faces'"), assembly::ProblemError);
  t.elements.conn = {0, 1, 1, 2};
  t.params.assign(5, 0.5);
  CHECK_THROWS_WITH_AS(p.add_term(t), doctest::Contains("params hold 5"), assembly::ProblemError);
  t.params.assign(6, 0.5);
  t.input_vertex = {0, 2};
  CHECK_THROWS_WITH_AS(p.add_term(t), doctest::Contains("vertex 2"), assembly::ProblemError);
  t.input_vertex = {};
  t.output_scatter = {{{3, 1.0}}};
  CHECK_THROWS_WITH_AS(p.add_term(t), doctest::Contains("scattered to vertex 3"),
                       assembly::ProblemError);
  Term s;
  s.name = "springs";
  s.kernel = std::make_shared<Kernel>(test::spring_kernel());
  s.elements = {"edges", 2, {0, 1}};
  s.params = {1.0};
  s.uniforms = {1.0};
  CHECK_THROWS_WITH_AS(p.add_term(s), doctest::Contains("has 3 components"),
                       assembly::ProblemError);
  // Nothing was added; an empty element set is fine; the state size is checked.
  CHECK(p.n_terms() == 0);
  t.output_scatter = {{{0, 1.0}, {1, -1.0}}};
  t.elements.conn.clear();
  t.params.clear();
  CHECK_NOTHROW(p.add_term(t));
  CHECK(test::serial(p).residual(std::vector<double>(25, 1.0)) == std::vector<double>(25, 0.0));
  CHECK_THROWS_WITH_AS(test::serial(p).residual(std::vector<double>(24, 1.0)),
                       doctest::Contains("expected 25"), assembly::ProblemError);
}
