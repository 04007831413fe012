#include "examples/cfd/roe_problem.h"

#include <cmath>
#include <memory>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>

#include "examples/cfd/roe_flux.h"

namespace dualjit::cfd {

std::array<double, 5> FreeStream::conservative() const {
  const double a = alpha_deg * std::numbers::pi / 180, b = beta_deg * std::numbers::pi / 180;
  const double u = mach * std::cos(a) * std::cos(b), v = mach * std::sin(b),
               w = mach * std::sin(a) * std::cos(b);
  const double rho = 1.0, p = 1.0 / gamma;
  return {rho, rho * u, rho * v, rho * w, p / (gamma - 1) + 0.5 * rho * (u * u + v * v + w * w)};
}

Kernel roe_farfield_kernel() {
  return Kernel("roe_farfield", [](KernelBuilder& kb) {
    const auto Q = kb.input("Q", 5);
    const auto S = kb.param_vec<3>("S");
    const Expr gamma = kb.uniform("gamma");
    std::vector<Expr> qinf;
    for (int i = 0; i < 5; ++i) qinf.push_back(kb.uniform("Qinf" + std::to_string(i)));
    kb.output("F", roe_flux(Q, qinf, S, gamma));
  });
}

assembly::Term roe_edge_term(const EdgeMesh& em, double gamma) {
  assembly::Term edges;
  edges.name = "interior edges";
  edges.kernel = std::make_shared<Kernel>(roe_flux_kernel());
  edges.elements = {"edges", 2, em.edges};
  edges.output_scatter = {{{0, 1.0}, {1, -1.0}}};
  edges.params = em.area;
  edges.uniforms = {gamma};
  return edges;
}

namespace {

// The nodes with a nonzero area in `areas` (n_nodes * 3) and those areas, as a term over them.
bool add_node_term(assembly::Problem& p, const std::vector<double>& areas, const char* name,
                   Kernel kernel, std::vector<double> uniforms) {
  std::vector<int32_t> nodes;
  std::vector<double> area;
  for (size_t i = 0; i < areas.size() / 3; ++i) {
    const double* s = &areas[i * 3];
    if (s[0] == 0 && s[1] == 0 && s[2] == 0) continue;
    nodes.push_back(static_cast<int32_t>(i));
    area.insert(area.end(), s, s + 3);
  }
  if (nodes.empty()) return false;
  assembly::Term t;
  t.name = name;
  t.kernel = std::make_shared<Kernel>(std::move(kernel));
  t.elements = {"boundary nodes", 1, std::move(nodes)};
  t.params = std::move(area);
  t.uniforms = std::move(uniforms);
  p.add_term(std::move(t));
  return true;
}

assembly::Problem interior(const EdgeMesh& em, const FreeStream& inf) {
  assembly::Problem p(em.n_nodes, 5);
  p.add_term(roe_edge_term(em, inf.gamma));
  return p;
}

}  // namespace

assembly::Problem roe_problem(const EdgeMesh& em, const FreeStream& inf, bool with_boundary) {
  if (!with_boundary) return interior(em, inf);
  return roe_problem(em, inf, farfield_boundary(em));
}

assembly::Problem roe_problem(const EdgeMesh& em, const FreeStream& inf,
                              const BoundaryAreas& boundary) {
  const size_t size = static_cast<size_t>(em.n_nodes) * 3;
  if (boundary.farfield.size() != size || boundary.slip_wall.size() != size)
    throw std::invalid_argument("roe_problem: boundary areas for " +
                                std::to_string(boundary.farfield.size() / 3) + " and " +
                                std::to_string(boundary.slip_wall.size() / 3) + " nodes, not " +
                                std::to_string(em.n_nodes));
  assembly::Problem p = interior(em, inf);
  const auto q = inf.conservative();
  add_node_term(p, boundary.farfield, "far-field nodes", roe_farfield_kernel(),
                {inf.gamma, q[0], q[1], q[2], q[3], q[4]});
  add_node_term(p, boundary.slip_wall, "slip-wall nodes", roe_slip_wall_kernel(), {inf.gamma});
  return p;
}

std::vector<double> free_stream_state(int64_t n_nodes, const FreeStream& inf) {
  const auto q = inf.conservative();
  std::vector<double> out;
  out.reserve(static_cast<size_t>(n_nodes) * 5);
  for (int64_t i = 0; i < n_nodes; ++i) out.insert(out.end(), q.begin(), q.end());
  return out;
}

std::vector<double> perturbed_state(int64_t n_nodes, const FreeStream& inf, double amplitude,
                                    uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto q = inf.conservative();
  std::vector<double> out(n_nodes * 5);
  for (int64_t i = 0; i < n_nodes; ++i) {
    // Primitive perturbation keeps rho and p positive for amplitude < 1.
    const double rho = q[0] * (1 + amplitude * u(rng));
    const double vel[3] = {q[1] / q[0] + amplitude * u(rng), q[2] / q[0] + amplitude * u(rng),
                           q[3] / q[0] + amplitude * u(rng)};
    const double p = (1.0 / inf.gamma) * (1 + amplitude * u(rng));
    double* o = &out[i * 5];
    o[0] = rho;
    for (int d = 0; d < 3; ++d) o[1 + d] = rho * vel[d];
    o[4] = p / (inf.gamma - 1) + 0.5 * rho * (vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2]);
  }
  return out;
}

}  // namespace dualjit::cfd
