#include "examples/cfd/steady_euler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "examples/cfd/device_steady_engine.h"
#include "examples/cfd/flow_state.h"
#include "examples/cfd/host_steady_engine.h"
#include "examples/cfd/storage_tuner.h"
#include "solvers/stopwatch.h"

namespace dualjit::cfd {
namespace {

constexpr int kB = 5;

void check_state(const EdgeMesh& em, std::span<const double> q, const char* who) {
  if (q.size() != static_cast<size_t>(em.n_nodes) * kB)
    throw std::invalid_argument(std::string(who) + ": a state of " + std::to_string(q.size()) +
                                " values for " + std::to_string(em.n_nodes) + " nodes of 5");
}

}  // namespace

std::string_view storage_name(JacobianStorage s) {
  switch (s) {
    case JacobianStorage::automatic:
      return "automatic";
    case JacobianStorage::block_csr:
      return "block_csr";
    case JacobianStorage::split:
      return "split";
    case JacobianStorage::edges:
      return "edges";
  }
  return "?";
}

JacobianStorage parse_storage(std::string_view name) {
  if (name == "auto") return JacobianStorage::automatic;
  for (JacobianStorage s : {JacobianStorage::automatic, JacobianStorage::block_csr,
                            JacobianStorage::split, JacobianStorage::edges}) {
    if (name == storage_name(s)) return s;
  }
  throw std::invalid_argument("unknown Jacobian storage '" + std::string(name) +
                              "' (auto, block_csr, split, edges)");
}

std::string_view preconditioner_name(SteadyPreconditioner p) {
  switch (p) {
    case SteadyPreconditioner::automatic:
      return "automatic";
    case SteadyPreconditioner::block_jacobi:
      return "block_jacobi";
    case SteadyPreconditioner::block_ilu0:
      return "block_ilu0";
    case SteadyPreconditioner::multicolor_sgs:
      return "multicolor_sgs";
  }
  return "?";
}

std::vector<double> local_time_steps(const EdgeMesh& em, std::span<const double> q, double gamma) {
  check_state(em, q, "local_time_steps");
  const int64_t n = em.n_nodes;
  std::vector<double> speed_of_sound(n), lambda(n, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    const double* s = &q[i * kB];
    const double rho = s[0];
    const double p = pressure(s, gamma);
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

namespace {

std::unique_ptr<SteadyEngine> make_engine(assembly::Assembler& assembler, const EdgeMesh& em,
                                          double gamma, const std::vector<double>& q,
                                          const SteadyOptions& options) {
  if (assembler.backend() == assembly::Backend::Cuda)
    return device_steady_engine(assembler, em, gamma, q, options);
  return host_steady_engine(assembler, em, gamma, q, options);
}

}  // namespace

void check_steady_options(const SteadyOptions& options, const char* who) {
  if (options.eisenstat_walker && !(options.linear_rtol_max >= options.linear.rtol))
    throw std::invalid_argument(std::string(who) + ": linear_rtol_max " +
                                std::to_string(options.linear_rtol_max) + " below linear.rtol " +
                                std::to_string(options.linear.rtol));
}

SteadyResult pseudo_time_steps(SteadyEngine& engine, const SteadyOptions& options) {
  SteadyResult result;
  result.initial_residual = engine.residual_norm();
  double backoff = 1;
  double eta = options.eisenstat_walker ? options.linear_rtol_max : options.linear.rtol;
  double last_accepted = result.initial_residual;  // |R| before the last accepted step
  for (int it = 0;; ++it) {
    const double res = engine.residual_norm();
    result.final_residual = res;
    if (!std::isfinite(res) || backoff < 1e-12) break;
    if (res <= std::max(options.rtol * result.initial_residual, options.atol)) {
      result.converged = true;
      break;
    }
    if (it >= options.max_iterations) break;
    solvers::Stopwatch step;
    SteadyIteration h;
    h.iteration = it;
    h.residual = res;
    h.cfl = backoff * std::clamp(options.cfl_initial *
                                     std::pow(result.initial_residual / res, options.ser_exponent),
                                 options.cfl_initial, options.cfl_max);
    if (options.eisenstat_walker && it > 0 && !result.history.back().rejected) {
      const double ratio = res / last_accepted;
      const double safeguard = 0.9 * eta * eta;
      eta = std::clamp(std::max(0.9 * ratio * ratio, safeguard > 0.1 ? safeguard : 0.0),
                       options.linear.rtol, options.linear_rtol_max);
    }
    h.linear_rtol = eta;
    last_accepted = res;
    h.rejected = !engine.implicit_step(h.cfl, h);
    ++result.steps;
    backoff = h.rejected ? backoff / 10 : std::min(1.0, 2 * backoff);
    h.seconds = step.seconds();
    result.history.push_back(h);
  }
  return result;
}

SteadyResult solve_steady(assembly::Assembler& assembler, const EdgeMesh& em, double gamma,
                          std::vector<double>& q, const SteadyOptions& options) {
  check_state(em, q, "solve_steady");
  check_steady_options(options, "solve_steady");
  SteadyOptions o = options;
  if (o.storage == JacobianStorage::automatic) {
    if (assembler.backend() == assembly::Backend::Cuda) {
      jit::TuningDb db = jit::TuningDb::from_env();
      o.storage = choose_storage(assembler, em, gamma, q, o, db).storage;
    } else {
      o.storage = JacobianStorage::block_csr;
    }
  }
  const std::unique_ptr<SteadyEngine> engine = make_engine(assembler, em, gamma, q, o);
  SteadyResult result = pseudo_time_steps(*engine, options);
  result.storage = o.storage;
  engine->read_state(q);
  return result;
}

SteadyResult solve_steady_explicit(assembly::Assembler& assembler, const EdgeMesh& em, double gamma,
                                   std::vector<double>& q, double cfl, int max_iterations,
                                   double rtol) {
  check_state(em, q, "solve_steady_explicit");
  const std::unique_ptr<SteadyEngine> engine = make_engine(assembler, em, gamma, q, {});
  SteadyResult result;
  result.initial_residual = engine->residual_norm();
  result.final_residual = result.initial_residual;
  double measured = result.initial_residual;
  solvers::Stopwatch stretch;
  while (std::isfinite(measured) && measured > rtol * result.initial_residual &&
         result.steps < max_iterations) {
    SteadyIteration h;
    h.iteration = result.steps;
    h.residual = measured;
    h.cfl = cfl;
    // The norm is a reduction and a read back, dearer on the GPU than the step itself: it is
    // taken every kExplicitCheck steps.
    const int n = std::min(kExplicitCheck, max_iterations - result.steps);
    for (int k = 0; k < n; ++k) engine->explicit_step(cfl, k == n - 1);
    result.steps += n;
    measured = engine->residual_norm();
    h.seconds = stretch.seconds();
    stretch = solvers::Stopwatch();
    result.history.push_back(h);
  }
  result.final_residual = measured;
  result.converged = measured <= rtol * result.initial_residual;
  engine->read_state(q);
  return result;
}

std::string format_history(const SteadyResult& result) {
  std::string out = "  iter      |R|/|R0|         CFL   lin  lin_res   seconds\n";
  char line[160];
  for (const SteadyIteration& h : result.history) {
    std::snprintf(line, sizeof line, "%6d  %12.4e  %10.3e  %4d  %7.1e  %8.4f%s\n", h.iteration,
                  h.residual / result.initial_residual, h.cfl, h.linear_iterations,
                  h.linear_residual, h.seconds, h.rejected ? "  rejected (unphysical)" : "");
    out += line;
  }
  std::snprintf(line, sizeof line, "final |R|/|R0| %.4e, %s\n",
                result.final_residual / result.initial_residual,
                result.converged ? "converged" : "not converged");
  return out + line;
}

}  // namespace dualjit::cfd
