#include "examples/cfd/steady_euler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "solvers/block_ilu0.h"
#include "solvers/block_jacobi.h"
#include "solvers/bsr_multiply.h"
#include "solvers/solver_error.h"
#include "solvers/stopwatch.h"

namespace dualjit::cfd {
namespace {

constexpr int kB = 5;

double norm2(std::span<const double> v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

void check_state(const EdgeMesh& em, std::span<const double> q, const char* who) {
  if (q.size() != static_cast<size_t>(em.n_nodes) * kB)
    throw std::invalid_argument(std::string(who) + ": a state of " + std::to_string(q.size()) +
                                " values for " + std::to_string(em.n_nodes) + " nodes of 5");
}

}  // namespace

std::vector<double> local_time_steps(const EdgeMesh& em, std::span<const double> q, double gamma) {
  check_state(em, q, "local_time_steps");
  const int64_t n = em.n_nodes;
  std::vector<double> speed_of_sound(n), lambda(n, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    const double* s = &q[i * kB];
    const double rho = s[0];
    const double kinetic = 0.5 * (s[1] * s[1] + s[2] * s[2] + s[3] * s[3]) / rho;
    const double p = (gamma - 1) * (s[4] - kinetic);
    if (!(rho > 0) || !(p > 0))
      throw std::invalid_argument("local_time_steps: node " + std::to_string(i) + " has density " +
                                  std::to_string(rho) + " and pressure " + std::to_string(p));
    speed_of_sound[i] = std::sqrt(gamma * p / rho);
  }
  // The spectral radius of the flux Jacobian through a face S at node i's state.
  auto radius = [&](int64_t i, const double* S) {
    const double* s = &q[i * kB];
    const double un = (s[1] * S[0] + s[2] * S[1] + s[3] * S[2]) / s[0];
    return std::abs(un) + speed_of_sound[i] * std::sqrt(S[0] * S[0] + S[1] * S[1] + S[2] * S[2]);
  };
  for (int64_t e = 0; e < em.n_edges(); ++e) {
    const double* S = &em.area[e * 3];
    lambda[em.edges[2 * e]] += radius(em.edges[2 * e], S);
    lambda[em.edges[2 * e + 1]] += radius(em.edges[2 * e + 1], S);
  }
  for (int64_t i = 0; i < n; ++i) lambda[i] += radius(i, &em.bnode_area[i * 3]);
  std::vector<double> dt(n);
  for (int64_t i = 0; i < n; ++i) dt[i] = em.node_volume[i] / lambda[i];
  return dt;
}

SteadyResult solve_steady(assembly::Assembler& assembler, const EdgeMesh& em, double gamma,
                          std::vector<double>& q, const SteadyOptions& options) {
  check_state(em, q, "solve_steady");
  const int64_t n = em.n_nodes;
  SteadyResult result;
  std::vector<double> r = assembler.residual(q);
  result.initial_residual = norm2(r);
  std::vector<double> b(q.size()), dq(q.size());
  for (int it = 0;; ++it) {
    const double res = norm2(r);
    result.final_residual = res;
    if (!std::isfinite(res)) break;
    if (res <= std::max(options.rtol * result.initial_residual, options.atol)) {
      result.converged = true;
      break;
    }
    if (it >= options.max_iterations) break;
    solvers::Stopwatch step;
    SteadyIteration h;
    h.iteration = it;
    h.residual = res;
    h.cfl = std::clamp(
        options.cfl_initial * std::pow(result.initial_residual / res, options.ser_exponent),
        options.cfl_initial, options.cfl_max);
    const std::vector<double> dt = local_time_steps(em, q, gamma);

    solvers::Stopwatch assembly;
    mesh::BlockCsr<double> a = assembler.jacobian(q);
    for (int64_t i = 0; i < n; ++i) {
      double* d = a.block(a.pattern->diag_index(i));
      const double shift = em.node_volume[i] / (h.cfl * dt[i]);
      for (int k = 0; k < kB; ++k) d[k * kB + k] += shift;
    }
    h.assembly_seconds = assembly.seconds();

    solvers::Stopwatch setup;
    std::unique_ptr<solvers::BlockIlu0> ilu;
    std::unique_ptr<solvers::BlockJacobi> jacobi;
    solvers::LinearOperator precondition;
    if (options.preconditioner == SteadyPreconditioner::block_ilu0) {
      ilu = std::make_unique<solvers::BlockIlu0>(a);
      precondition = [&](std::span<const double> x, std::span<double> y) { ilu->apply(x, y); };
    } else {
      jacobi = std::make_unique<solvers::BlockJacobi>(a);
      precondition = [&](std::span<const double> x, std::span<double> y) { jacobi->apply(x, y); };
    }
    h.preconditioner_seconds = setup.seconds();

    solvers::Stopwatch krylov;
    for (size_t k = 0; k < b.size(); ++k) b[k] = -r[k];
    std::fill(dq.begin(), dq.end(), 0.0);
    const solvers::GmresResult g = solvers::gmres(
        [&](std::span<const double> x, std::span<double> y) { solvers::multiply(a, x, y); },
        precondition, b, dq, options.linear);
    h.linear_iterations = g.iterations;
    h.linear_residual = g.initial_residual > 0 ? g.residual / g.initial_residual : 0;
    h.krylov_seconds = krylov.seconds();

    for (size_t k = 0; k < q.size(); ++k) q[k] += dq[k];
    r = assembler.residual(q);
    h.seconds = step.seconds();
    result.history.push_back(h);
  }
  return result;
}

SteadyResult solve_steady_explicit(assembly::Assembler& assembler, const EdgeMesh& em, double gamma,
                                   std::vector<double>& q, double cfl, int max_iterations,
                                   double rtol) {
  check_state(em, q, "solve_steady_explicit");
  SteadyResult result;
  std::vector<double> r = assembler.residual(q);
  result.initial_residual = norm2(r);
  for (int it = 0;; ++it) {
    const double res = norm2(r);
    result.final_residual = res;
    if (!std::isfinite(res)) break;
    if (res <= rtol * result.initial_residual) {
      result.converged = true;
      break;
    }
    if (it >= max_iterations) break;
    solvers::Stopwatch step;
    const std::vector<double> dt = local_time_steps(em, q, gamma);
    for (int64_t i = 0; i < em.n_nodes; ++i) {
      const double f = cfl * dt[i] / em.node_volume[i];
      for (int k = 0; k < kB; ++k) q[i * kB + k] -= f * r[i * kB + k];
    }
    r = assembler.residual(q);
    SteadyIteration h;
    h.iteration = it;
    h.residual = res;
    h.cfl = cfl;
    h.seconds = step.seconds();
    result.history.push_back(h);
  }
  return result;
}

std::string format_history(const SteadyResult& result) {
  std::string out = "  iter      |R|/|R0|         CFL   lin  lin_res   seconds\n";
  char line[160];
  for (const SteadyIteration& h : result.history) {
    std::snprintf(line, sizeof line, "%6d  %12.4e  %10.3e  %4d  %7.1e  %8.4f\n", h.iteration,
                  h.residual / result.initial_residual, h.cfl, h.linear_iterations,
                  h.linear_residual, h.seconds);
    out += line;
  }
  std::snprintf(line, sizeof line, "final |R|/|R0| %.4e, %s\n",
                result.final_residual / result.initial_residual,
                result.converged ? "converged" : "not converged");
  return out + line;
}

}  // namespace dualjit::cfd
