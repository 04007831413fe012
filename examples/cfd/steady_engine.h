// Internal to steady_euler.h: the per-backend work of the pseudo-time loops, which own the CFL
// schedule, the stopping rules and the history. host_steady_engine.h keeps the state and the
// linear algebra in host memory; device_steady_engine.h keeps them on the GPU.
#pragma once

#include <vector>

#include "examples/cfd/steady_euler.h"

namespace dualjit::cfd {

class SteadyEngine {
 public:
  virtual ~SteadyEngine() = default;
  // |R(q)| of the current state (2-norm over all nodes and components).
  virtual double residual_norm() = 0;
  // One implicit step: (V / (cfl dt) + dR/dQ) dq = -R to GMRES's relative tolerance
  // h.linear_rtol, q += dq, then R at the new q. Fills h's linear and timing fields. Returns false,
  // with the state and residual as before the step, when the new state has a node of non-positive
  // (or non-finite) density or pressure or its residual is not finite: the caller retries with a
  // smaller CFL.
  virtual bool implicit_step(double cfl, SteadyIteration& h) = 0;
  // q_i -= cfl dt_i / V_i R_i, then R at the new q; its norm too when `measure` (otherwise
  // residual_norm() is stale until a measured step).
  virtual void explicit_step(double cfl, bool measure) = 0;
  // The current state into q (n_nodes x 5).
  virtual void read_state(std::vector<double>& q) = 0;
};

// Throws std::invalid_argument, naming `who`, for options the loop cannot follow.
void check_steady_options(const SteadyOptions& options, const char* who);

// The pseudo-time loop of solve_steady over an engine: the CFL schedule, the Eisenstat-Walker
// tolerances, the step rejections, the stopping rules and the history (storage left at its
// default). A distributed engine's norms are global, so every rank runs the loop alike.
SteadyResult pseudo_time_steps(SteadyEngine& engine, const SteadyOptions& options);

}  // namespace dualjit::cfd
