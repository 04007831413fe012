#include "solvers/block_pcg.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "solvers/block_jacobi.h"
#include "solvers/bsr_multiply.h"
#include "solvers/solver_error.h"
#include "solvers/vector_ops.h"

namespace dualjit::solvers {

namespace {

double true_residual(const mesh::BlockCsr<double>& a, std::span<const double> b,
                     std::span<const double> x, std::vector<double>& work) {
  multiply(a, x, work);
  for (size_t i = 0; i < b.size(); ++i) work[i] = b[i] - work[i];
  return norm(work);
}

}  // namespace

PcgResult block_pcg(const mesh::BlockCsr<double>& a, std::span<const double> b, std::span<double> x,
                    const PcgOptions& o) {
  if (a.block_rows != a.block_cols) throw SolverError("block_pcg: the blocks are not square");
  if (x.size() != b.size()) {
    throw SolverError("block_pcg: b has " + std::to_string(b.size()) + " values, x " +
                      std::to_string(x.size()));
  }
  PcgResult res;
  const double b_norm = norm(b);
  if (b_norm == 0) {
    // The solution of A x = 0 is 0: no iteration needed, whatever the guess.
    for (double& v : x) v = 0;
    res.converged = true;
    return res;
  }
  std::optional<BlockJacobi> jacobi;
  if (o.block_jacobi) jacobi.emplace(a);
  const auto precondition = [&](std::span<const double> r, std::span<double> z) {
    if (jacobi) {
      jacobi->apply(r, z);
    } else {
      std::copy(r.begin(), r.end(), z.begin());
    }
  };
  const size_t n = b.size();
  std::vector<double> r(n), z(n), p(n), ap(n);
  true_residual(a, b, x, r);
  const double target = o.relative_tolerance * b_norm;
  double r_norm = norm(r);
  precondition(r, z);
  p = z;
  double rz = dot(r, z);
  while (r_norm > target && res.iterations < o.max_iterations) {
    multiply(a, p, ap);
    const double pap = dot(p, ap);
    if (!std::isfinite(pap)) {
      throw SolverError("block_pcg: p.Ap is not finite at iteration " +
                        std::to_string(res.iterations));
    }
    if (pap <= 0) {
      res.negative_curvature = true;
      break;
    }
    const double alpha = rz / pap;
    axpy(alpha, p, x);
    axpy(-alpha, ap, r);
    r_norm = norm(r);
    ++res.iterations;
    if (!std::isfinite(r_norm)) {
      throw SolverError("block_pcg: the residual is not finite at iteration " +
                        std::to_string(res.iterations));
    }
    if (r_norm <= target) break;
    precondition(r, z);
    const double rz_next = dot(r, z);
    const double beta = rz_next / rz;
    rz = rz_next;
    for (size_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
  }
  // Converged by the recurrence residual (what CG stops on); the reported residual is the true
  // one, which can drift from it in the last digits.
  res.converged = !res.negative_curvature && r_norm <= target;
  res.relative_residual = true_residual(a, b, x, ap) / b_norm;
  return res;
}

}  // namespace dualjit::solvers
