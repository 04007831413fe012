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
  // One implicit step: (V / (cfl dt) + dR/dQ) dq = -R, q += dq, then R at the new q. Fills h's
  // linear and timing fields.
  virtual void implicit_step(double cfl, SteadyIteration& h) = 0;
  // q_i -= cfl dt_i / V_i R_i, then R at the new q.
  virtual void explicit_step(double cfl) = 0;
  // The current state into q (n_nodes x 5).
  virtual void read_state(std::vector<double>& q) = 0;
};

}  // namespace dualjit::cfd
