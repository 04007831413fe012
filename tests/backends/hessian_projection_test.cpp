// Positive-definite projection of element Hessians inside the assembly (jit/hessian_projection.h
// through AssemblerOptions::hessian_projection): the assembled Hessian equals the sum of the
// elements' Hessians projected by Eigen's eigensolver, on the CPU backend and the GPU, for every
// in-place matrix strategy, and a lone element's projected Hessian has eigenvalues >= epsilon.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <random>

#include "backends/assembly/assembler.h"
#include "backends/mesh/export.h"
#include "dsl/reference_evaluator.h"
#include "examples/cfd/tet_mesh.h"
#include "examples/mesh_energy/neo_hookean.h"
#include "jit/hessian_projection.h"
#include "jit/lowering.h"
#include "jit/nvrtc_compiler.h"
#include "support/element_problems.h"
#include "support/gpu.h"
#include "support/test_kernels.h"

using namespace dualjit;
using assembly::Assembler;
using assembly::AssemblerOptions;
using assembly::ElementStrategy;
using assembly::Problem;
using test::max_rel;
using test::uniform;

namespace {

Eigen::MatrixXd project(const Eigen::MatrixXd& h, const jit::HessianProjection& p) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(h);
  Eigen::VectorXd l = es.eigenvalues();
  for (int i = 0; i < l.size(); ++i) {
    const double a = p.kind == jit::ProjectionKind::Abs ? std::abs(l[i]) : l[i];
    l[i] = std::max(a, p.epsilon);
  }
  return es.eigenvectors() * l.asDiagonal() * es.eigenvectors().transpose();
}

// Sum over every term's elements of the projected element Hessian (in the kernel's input
// space, mapped to the nodes through the term's binding), dense.
Eigen::MatrixXd projected_reference(const Problem& p, const std::vector<double>& x,
                                    const jit::HessianProjection& proj) {
  const int B = p.block_size();
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(p.n_nodes() * B, p.n_nodes() * B);
  for (size_t ti = 0; ti < p.n_terms(); ++ti) {
    const assembly::Term& t = p.term(ti);
    const int k = t.elements.k;
    std::vector<int> iv = t.input_vertex;
    const int n_in = t.kernel->n_inputs();
    const int slots = n_in / B;
    if (iv.empty())
      for (int s = 0; s < slots; ++s) iv.push_back(s);
    const int np = t.params.empty() ? 0 : static_cast<int>(t.params.size() / t.elements.size());
    for (int64_t e = 0; e < static_cast<int64_t>(t.elements.size()); ++e) {
      std::vector<double> in;
      std::vector<int64_t> node(slots);
      for (int s = 0; s < slots; ++s) {
        node[s] = k == 1 && t.elements.conn.empty() ? e : t.elements.conn[e * k + iv[s]];
        for (int c = 0; c < B; ++c) in.push_back(x[node[s] * B + c]);
      }
      const auto r = evaluate_hessian(
          *t.kernel, {in, std::span<const double>(t.params).subspan(e * np, np), t.uniforms});
      const Eigen::MatrixXd he =
          project(Eigen::Map<const Eigen::MatrixXd>(r.hessian.data(), n_in, n_in), proj);
      for (int a = 0; a < slots; ++a)
        for (int b = 0; b < slots; ++b)
          H.block(node[a] * B, node[b] * B, B, B) += he.block(a * B, b * B, B, B);
    }
  }
  return H;
}

double dense_rel(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

// One compressed spring: its Hessian has a negative eigenvalue (along the spring) before the
// projection.
Problem one_spring(const std::vector<double>& x) {
  Problem p(2, 3);
  assembly::Term s;
  s.name = "spring";
  s.kernel = std::make_shared<Kernel>(test::spring_kernel());
  s.elements = {"edges", 2, {0, 1}};
  s.energy = true;
  const double len = std::sqrt((x[0] - x[3]) * (x[0] - x[3]) + (x[1] - x[4]) * (x[1] - x[4]) +
                               (x[2] - x[5]) * (x[2] - x[5]));
  s.params = {1.7 * len};  // rest length above the length: compressed
  s.uniforms = {40.0};
  p.add_term(std::move(s));
  return p;
}

void check_assembler(assembly::Backend backend, ElementStrategy strategy) {
  Problem p = test::energy_problem(40, 21);
  std::mt19937_64 rng(22);
  const auto x = uniform(120, -1.0, 1.0, rng);
  for (auto kind : {jit::ProjectionKind::Clamp, jit::ProjectionKind::Abs}) {
    AssemblerOptions o;
    o.backend = backend;
    o.matrix_strategy = strategy;
    o.hessian_projection = {kind, 1e-6};
    Assembler a(p, o);
    const Eigen::MatrixXd ref = projected_reference(p, x, o.hessian_projection);
    const Eigen::MatrixXd got(mesh::to_eigen(a.hessian(x)));
    INFO(jit::projection_kind_name(kind) << " " << element_strategy_name(strategy));
    CHECK(dense_rel(got, ref) < 1e-10);
    // The projection changed something: the unprojected Hessian differs.
    AssemblerOptions plain = o;
    plain.hessian_projection = {};
    const Eigen::MatrixXd raw(mesh::to_eigen(Assembler(p, plain).hessian(x)));
    CHECK(dense_rel(raw, ref) > 1e-3);
    // Upper storage holds the same upper triangle.
    const Eigen::MatrixXd up(mesh::to_eigen(a.hessian(x, mesh::Symmetry::Upper)));
    CHECK(dense_rel(up, ref) < 1e-10);
  }
}

// A deformed Neo-Hookean box: 12 x 12 element Hessians, some indefinite, some positive
// definite, and nodes of different valence (warps whose lanes run out of elements at different
// times).
Problem neo_hookean_box(int n, std::vector<double>& x, uint64_t seed) {
  const cfd::TetMesh m = cfd::box_tet_mesh(n, n, n);
  Problem p(m.n_nodes, 3);
  assembly::Term t;
  t.name = "elastic";
  t.kernel = std::make_shared<Kernel>(mesh_energy::stable_neo_hookean_kernel());
  t.elements = {"tets", 4, m.tets};
  t.energy = true;
  t.params = mesh_energy::neo_hookean_params(m.xyz, m.tets);
  const mesh_energy::Lame lame = mesh_energy::lame_parameters(1e4, 0.3);
  t.uniforms = {lame.mu, lame.lambda};
  p.add_term(std::move(t));
  std::mt19937_64 rng(seed);
  x = m.xyz;
  const auto noise = uniform(x.size(), -0.5 / n, 0.5 / n, rng);
  for (size_t i = 0; i < x.size(); ++i) x[i] += noise[i];
  return p;
}

// k vertices in 3D, every pair a spring with an energy 1/2 (|xa - xb|^2 - r^2)^2: compressed
// pairs make the 3k x 3k Hessian indefinite. k = 3, 5, 6, 7 give 9, 15, 18 and 21 inputs: teams
// of 16 and 32 lanes, even sizes and odd ones (a dummy index in the rotation order).
Problem cluster_problem(int k, int64_t n_nodes, int64_t n_elements, std::mt19937_64& rng) {
  Kernel kernel("cluster" + std::to_string(k), [k](KernelBuilder& kb) {
    std::vector<std::array<Expr, 3>> x;
    for (int v = 0; v < k; ++v) {
      auto xv = kb.input_vec<3>("x" + std::to_string(v));
      x.push_back({xv[0], xv[1], xv[2]});
    }
    Expr r = kb.uniform("r");
    std::vector<Expr> terms;
    for (int a = 0; a < k; ++a) {
      for (int b = a + 1; b < k; ++b) {
        Expr d2 = (x[a][0] - x[b][0]) * (x[a][0] - x[b][0]);
        for (int c = 1; c < 3; ++c) d2 = d2 + (x[a][c] - x[b][c]) * (x[a][c] - x[b][c]);
        terms.push_back(0.5 * (d2 - r * r) * (d2 - r * r));
      }
    }
    Expr e = terms[0];
    for (size_t i = 1; i < terms.size(); ++i) e = e + terms[i];
    kb.output("energy", e);
  });
  Problem p(n_nodes, 3);
  assembly::Term t;
  t.name = "clusters";
  t.kernel = std::make_shared<Kernel>(std::move(kernel));
  std::vector<int32_t> conn;
  std::vector<int32_t> nodes(n_nodes);
  for (int64_t i = 0; i < n_nodes; ++i) nodes[i] = int32_t(i);
  for (int64_t e = 0; e < n_elements; ++e) {
    std::shuffle(nodes.begin(), nodes.end(), rng);
    conn.insert(conn.end(), nodes.begin(), nodes.begin() + k);
  }
  t.elements = {"clusters", k, conn};
  t.energy = true;
  t.uniforms = {0.8};
  p.add_term(std::move(t));
  return p;
}

// The projected Hessian of every in-place strategy on `backend` against Eigen's projection of
// each element (and, for the node gathers, the Newton step's one pass too).
void check_every_strategy(assembly::Backend backend, Problem& p, const std::vector<double>& x,
                          const jit::HessianProjection& proj, const std::string& what) {
  const Eigen::MatrixXd ref = projected_reference(p, x, proj);
  for (auto s :
       {ElementStrategy::Scatter, ElementStrategy::NodeGather, ElementStrategy::StagedNodeGather}) {
    AssemblerOptions o;
    o.backend = backend;
    o.matrix_strategy = s;
    o.hessian_projection = proj;
    Assembler a(p, o);
    INFO(what << ", " << jit::projection_kind_name(proj.kind) << ", " << element_strategy_name(s));
    CHECK(dense_rel(Eigen::MatrixXd(mesh::to_eigen(a.hessian(x))), ref) < 1e-10);
    if (s != ElementStrategy::Scatter) {
      const assembly::EnergyGradientHessian egh = a.energy_gradient_hessian(x);
      CHECK(dense_rel(Eigen::MatrixXd(mesh::to_eigen(egh.hessian)), ref) < 1e-10);
    }
  }
  AssemblerOptions plain;
  plain.backend = backend;
  const Eigen::MatrixXd raw(mesh::to_eigen(Assembler(p, plain).hessian(x)));
  CHECK(dense_rel(raw, ref) > 1e-3);  // the projection changed something
}

}  // namespace

TEST_CASE("projection kinds parse and name themselves; bad epsilon is refused") {
  CHECK(jit::parse_projection_kind("clamp") == jit::ProjectionKind::Clamp);
  CHECK(jit::parse_projection_kind("abs") == jit::ProjectionKind::Abs);
  CHECK_THROWS_WITH_AS(jit::parse_projection_kind("eig"), doctest::Contains("clamp, abs"),
                       std::invalid_argument);
  CHECK(jit::HessianProjection{jit::ProjectionKind::Clamp, 1e-9}.suffix() == "_pdc");
  CHECK(jit::HessianProjection{}.suffix().empty());
  CHECK_THROWS_AS(jit::emit_projection_function("f", 6, {jit::ProjectionKind::Clamp, -1.0}),
                  std::invalid_argument);
}

TEST_CASE("a lone compressed spring's projected Hessian has eigenvalues >= epsilon") {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 5; ++trial) {
    const auto x = uniform(6, -1.0, 1.0, rng);
    Problem p = one_spring(x);
    AssemblerOptions raw_o;
    raw_o.backend = assembly::Backend::Cpu;
    const Eigen::MatrixXd raw(mesh::to_eigen(Assembler(p, raw_o).hessian(x)));
    const Eigen::VectorXd l0 = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(raw).eigenvalues();
    REQUIRE(l0.minCoeff() < -1.0);  // really indefinite
    for (auto kind : {jit::ProjectionKind::Clamp, jit::ProjectionKind::Abs}) {
      AssemblerOptions o = raw_o;
      o.hessian_projection = {kind, 1e-3};
      const Eigen::MatrixXd h(mesh::to_eigen(Assembler(p, o).hessian(x)));
      CHECK((h - h.transpose()).cwiseAbs().maxCoeff() < 1e-12 * h.cwiseAbs().maxCoeff());
      const Eigen::VectorXd l = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(h).eigenvalues();
      CHECK(l.minCoeff() >= 1e-3 * (1 - 1e-9));
      // Abs keeps the magnitudes: the eigenvalues are |l0| (sorted), clamped at epsilon.
      if (kind == jit::ProjectionKind::Abs) {
        std::vector<double> want;
        for (int i = 0; i < l0.size(); ++i) want.push_back(std::max(std::abs(l0[i]), 1e-3));
        std::sort(want.begin(), want.end());
        for (int i = 0; i < l.size(); ++i) CHECK(l[i] == doctest::Approx(want[i]).epsilon(1e-10));
      }
    }
  }
}

TEST_CASE("CPU: projected Hessian equals the sum of Eigen-projected element Hessians") {
  for (auto s :
       {ElementStrategy::Scatter, ElementStrategy::NodeGather, ElementStrategy::StagedNodeGather})
    check_assembler(assembly::Backend::Cpu, s);
}

TEST_CASE("CPU: 9x9 to 21x21 element Hessians projected as Eigen projects them") {
  std::mt19937_64 rng(41);
  for (int k : {3, 5, 6, 7}) {
    Problem p = cluster_problem(k, 60, 70, rng);
    const auto x = uniform(180, -0.6, 0.6, rng);
    check_every_strategy(assembly::Backend::Cpu, p, x, {jit::ProjectionKind::Clamp, 1e-6},
                         std::to_string(3 * k) + " inputs");
  }
}

TEST_CASE("12x12: deformed Neo-Hookean tets, some indefinite, some positive definite") {
  std::vector<double> x;
  Problem p = neo_hookean_box(2, x, 9);
  for (auto kind : {jit::ProjectionKind::Clamp, jit::ProjectionKind::Abs}) {
    AssemblerOptions o;
    o.backend = assembly::Backend::Cpu;
    o.hessian_projection = {kind, 1e-6};
    const Eigen::MatrixXd ref = projected_reference(p, x, o.hessian_projection);
    const Eigen::MatrixXd got(mesh::to_eigen(Assembler(p, o).hessian(x)));
    INFO(jit::projection_kind_name(kind));
    CHECK(dense_rel(got, ref) < 1e-10);
    const Eigen::VectorXd l = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(got).eigenvalues();
    CHECK(l.minCoeff() > 0);
  }
  // Both exits ran: some element Hessians were indefinite, some positive definite.
  int indefinite = 0, definite = 0;
  const assembly::Term& tt = p.term(0);
  for (int64_t e = 0; e < tt.elements.size(); ++e) {
    std::vector<double> in;
    for (int v = 0; v < 4; ++v)
      for (int c = 0; c < 3; ++c) in.push_back(x[tt.elements.conn[e * 4 + v] * 3 + c]);
    const auto r = evaluate_hessian(
        *tt.kernel, {in, std::span<const double>(tt.params).subspan(e * 10, 10), tt.uniforms});
    const double lmin = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(
                            Eigen::Map<const Eigen::MatrixXd>(r.hessian.data(), 12, 12))
                            .eigenvalues()
                            .minCoeff();
    (lmin < 0 ? indefinite : definite) += 1;
  }
  CHECK(indefinite > 0);
  CHECK(definite > 0);
}

TEST_CASE("team sizes: threads project small Hessians, warps' teams the 9x9 to 32x32") {
  CHECK(jit::projection_team_lanes(6) == 0);
  CHECK(jit::projection_team_lanes(8) == 0);
  CHECK(jit::projection_team_lanes(9) == 16);
  CHECK(jit::projection_team_lanes(12) == 16);
  CHECK(jit::projection_team_lanes(16) == 16);
  CHECK(jit::projection_team_lanes(17) == 32);
  CHECK(jit::projection_team_lanes(32) == 32);
  CHECK(jit::projection_team_lanes(33) == 0);
  CHECK_THROWS_WITH_AS(
      jit::emit_team_projection_function("f", 6, {jit::ProjectionKind::Clamp, 1e-9}),
      doctest::Contains("no team projection of a 6x6"), std::invalid_argument);
}

// What the GPU runs, compiled without one: the team form of every in-place strategy compiles
// for sm_90 within the register file, and the host form of the same source keeps the thread's
// own projection.
TEST_CASE("the 12x12 team projection compiles with NVRTC for every in-place strategy") {
  std::vector<double> x;
  Problem p = neo_hookean_box(2, x, 3);
  for (auto s :
       {ElementStrategy::Scatter, ElementStrategy::NodeGather, ElementStrategy::StagedNodeGather}) {
    AssemblerOptions o;
    o.backend = assembly::Backend::Cuda;
    o.matrix_strategy = s;
    o.hessian_projection = {jit::ProjectionKind::Clamp, 1e-9};
    const jit::LoweredKernel k =
        jit::lower(*p.term(0).kernel, assembly::element_kernel_lowering(p, 0, Mode::Hessian, o));
    INFO(element_strategy_name(s));
    CHECK(k.cuda_source.find("_project_team(d2, ") != std::string::npos);
    CHECK(k.cuda_source.find("__shfl_sync") != std::string::npos);
    const jit::CompiledImage img = jit::nvrtc_compile(k.cuda_entry, k.cuda_source, {});
    CHECK(img.is_cubin);
    CHECK(img.ptxas.registers > 0);
    CHECK(img.ptxas.registers <= 255);
    // Where no shared-memory tile sets the occupancy, 20 warps per multiprocessor.
    if (s != ElementStrategy::StagedNodeGather) CHECK(img.ptxas.registers <= 65536 / 640);
    MESSAGE(element_strategy_name(s)
            << ": " << img.ptxas.registers << " registers, " << img.ptxas.spill_store_bytes
            << " B spilled, " << img.compile_seconds << " s");
  }
}

TEST_CASE("a projection with element-gather is refused, naming it") {
  Problem p = test::energy_problem(10, 3);
  AssemblerOptions o;
  o.backend = assembly::Backend::Cpu;
  o.matrix_strategy = ElementStrategy::Gather;
  o.hessian_projection = {jit::ProjectionKind::Clamp, 1e-9};
  CHECK_THROWS_WITH_AS(Assembler(p, o), doctest::Contains("element-gather"),
                       assembly::ProblemError);
}

TEST_SUITE("gpu") {
  TEST_CASE("GPU: projected Hessian equals the sum of Eigen-projected element Hessians" *
            test::needs_gpu()) {
    for (auto s :
         {ElementStrategy::Scatter, ElementStrategy::NodeGather, ElementStrategy::StagedNodeGather})
      check_assembler(assembly::Backend::Cuda, s);
  }

  // Teams of 16 and 32 lanes, odd and even sizes, against Eigen, through every in-place
  // strategy; 70 elements on 60 nodes: three warps, the last partial.
  TEST_CASE("GPU: 9x9 to 21x21 projected by teams of lanes equal Eigen's projection" *
            test::needs_gpu()) {
    std::mt19937_64 rng(41);
    for (int k : {3, 5, 6, 7}) {
      Problem p = cluster_problem(k, 60, 70, rng);
      const auto x = uniform(180, -0.6, 0.6, rng);
      check_every_strategy(assembly::Backend::Cuda, p, x, {jit::ProjectionKind::Clamp, 1e-6},
                           std::to_string(3 * k) + " inputs");
    }
  }

  // The team projection (12 x 12: teams of 16 lanes) against Eigen, through every in-place
  // strategy, on a box with several warps, partial last warps and uneven valences.
  TEST_CASE("GPU: 12x12 projected by teams of lanes equals Eigen's projection" *
            test::needs_gpu()) {
    for (int n : {2, 5}) {
      std::vector<double> x;
      Problem p = neo_hookean_box(n, x, 17 + n);
      for (auto kind : {jit::ProjectionKind::Clamp, jit::ProjectionKind::Abs})
        check_every_strategy(assembly::Backend::Cuda, p, x, {kind, 1e-6},
                             "box " + std::to_string(n));
    }
  }
}
