#include "examples/cfd/manufactured.h"

#include <cmath>
#include <memory>
#include <numbers>

#include "examples/cfd/roe_flux.h"
#include "examples/cfd/roe_problem.h"

namespace dualjit::cfd {
namespace {

constexpr double kPi = std::numbers::pi;

// F(Q) . S, the exact flux of a state through an area vector.
std::array<double, 5> flux(const std::array<double, 5>& q, const double* S, double gamma) {
  const double rho = q[0], u[3] = {q[1] / rho, q[2] / rho, q[3] / rho};
  const double p = (gamma - 1) * (q[4] - 0.5 * rho * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]));
  const double un = u[0] * S[0] + u[1] * S[1] + u[2] * S[2];
  return {rho * un, rho * u[0] * un + p * S[0], rho * u[1] * un + p * S[1],
          rho * u[2] * un + p * S[2], (q[4] + p) * un};
}

}  // namespace

std::array<double, 5> manufactured_state(const double x[3], double gamma) {
  const double rho = 1.0 + 0.2 * std::sin(kPi * x[0]) * std::cos(0.5 * kPi * x[1]);
  const double u = 0.4 + 0.1 * std::cos(kPi * x[1]) * std::sin(kPi * x[2]);
  const double v = 0.05 * std::sin(kPi * x[0]) * std::sin(kPi * x[2]);
  const double w = 0.08 * std::cos(kPi * x[0] * x[1]);
  const double p = 1.0 / gamma + 0.1 * std::cos(kPi * x[0]) * std::sin(0.5 * kPi * x[2]);
  return {rho, rho * u, rho * v, rho * w, p / (gamma - 1) + 0.5 * rho * (u * u + v * v + w * w)};
}

std::vector<double> manufactured_nodes(const TetMesh& mesh, double gamma) {
  std::vector<double> q;
  q.reserve(static_cast<size_t>(mesh.n_nodes) * 5);
  for (int64_t i = 0; i < mesh.n_nodes; ++i) {
    const auto s = manufactured_state(&mesh.xyz[i * 3], gamma);
    q.insert(q.end(), s.begin(), s.end());
  }
  return q;
}

Kernel roe_farfield_state_kernel() {
  return Kernel("roe_farfield_state", [](KernelBuilder& kb) {
    const auto Q = kb.input("Q", 5);
    const auto S = kb.param_vec<3>("S");
    const auto Qb = kb.param("Qb", 5);
    const Expr gamma = kb.uniform("gamma");
    kb.output("F", roe_flux(Q, Qb, S, gamma));
  });
}

Kernel constant_source_kernel() {
  return Kernel("source", [](KernelBuilder& kb) {
    const auto Q = kb.input("Q", 5);
    const auto s = kb.param("s", 5);
    std::vector<Expr> out;
    for (int k = 0; k < 5; ++k) out.push_back(0.0 * Q[k] - s[k]);
    kb.output("F", out);
  });
}

assembly::Problem manufactured_problem(const EdgeMesh& em, const TetMesh& mesh, double gamma) {
  assembly::Problem p(em.n_nodes, 5);
  p.add_term(roe_edge_term(em, gamma));

  // The flux of Q_m out of each dual cell: its faces' area vectors at the edge midpoints, and
  // the boundary part at the node.
  std::vector<double> source(static_cast<size_t>(em.n_nodes) * 5, 0.0);
  for (int64_t e = 0; e < em.n_edges(); ++e) {
    const int32_t a = em.edges[2 * e], b = em.edges[2 * e + 1];
    double mid[3];
    for (int d = 0; d < 3; ++d) mid[d] = 0.5 * (mesh.xyz[a * 3 + d] + mesh.xyz[b * 3 + d]);
    const auto f = flux(manufactured_state(mid, gamma), &em.area[e * 3], gamma);
    for (int k = 0; k < 5; ++k) {
      source[a * 5 + k] += f[k];
      source[b * 5 + k] -= f[k];
    }
  }
  std::vector<int32_t> bnodes;
  std::vector<double> bparams;
  for (int64_t i = 0; i < em.n_nodes; ++i) {
    const double* B = &em.bnode_area[i * 3];
    if (B[0] == 0 && B[1] == 0 && B[2] == 0) continue;
    const auto q = manufactured_state(&mesh.xyz[i * 3], gamma);
    const auto f = flux(q, B, gamma);
    for (int k = 0; k < 5; ++k) source[i * 5 + k] += f[k];
    bnodes.push_back(static_cast<int32_t>(i));
    bparams.insert(bparams.end(), B, B + 3);
    bparams.insert(bparams.end(), q.begin(), q.end());
  }
  assembly::Term far;
  far.name = "far-field nodes";
  far.kernel = std::make_shared<Kernel>(roe_farfield_state_kernel());
  far.elements = {"boundary nodes", 1, std::move(bnodes)};
  far.params = std::move(bparams);
  far.uniforms = {gamma};
  p.add_term(std::move(far));

  assembly::Term src;
  src.name = "manufactured source";
  src.kernel = std::make_shared<Kernel>(constant_source_kernel());
  std::vector<int32_t> all(static_cast<size_t>(em.n_nodes));
  for (int64_t i = 0; i < em.n_nodes; ++i) all[i] = static_cast<int32_t>(i);
  src.elements = {"nodes", 1, std::move(all)};
  src.params = std::move(source);
  p.add_term(std::move(src));
  return p;
}

}  // namespace dualjit::cfd
