// Internal to gmres.h and device_gmres.h: restarted GMRES's outer logic (cycles, the
// least-squares problem, stopping, history, the checks for non-finite values) over an Arnoldi
// process that owns the vectors, in host or device memory.
#pragma once

#include <vector>

#include "solvers/gmres.h"

namespace dualjit::solvers {

class ArnoldiProcess {
 public:
  virtual ~ArnoldiProcess() = default;
  // r = b - A x into the process's work vector; returns |r|.
  virtual double residual() = 0;
  // v_0 = r / beta.
  virtual void start(double beta) = 0;
  // w = A M^-1 v_j orthogonalised against v_0 .. v_j: h[0 .. j] the coefficients, h[j + 1] = |w|.
  // Returns |A M^-1 v_j| before the orthogonalisation.
  virtual double step(int j, double* h) = 0;
  // v_{j+1} = w / norm.
  virtual void extend(int j, double norm) = 0;
  // x += M^-1 (sum over i < k of y_i v_i).
  virtual void update(const std::vector<double>& y, int k) = 0;
};

// Solves from the process's x with restarts of o.restart vectors (the process holds that many
// plus one); `who` names the solver in SolverError's messages. Options are checked by the caller.
GmresResult run_gmres_cycles(ArnoldiProcess& arnoldi, const GmresOptions& o, const char* who);

}  // namespace dualjit::solvers
