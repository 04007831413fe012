#include "solvers/newton.h"

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "solvers/descent_loop.h"
#include "solvers/device_pcg.h"
#include "solvers/solver_error.h"
#include "solvers/sparse_cholesky.h"
#include "solvers/stopwatch.h"
#include "solvers/vector_ops.h"

namespace dualjit::solvers {

namespace {

void check_hessian(const mesh::BlockCsr<double>& h, const Objective& f, int k) {
  if (h.pattern == nullptr || h.block_rows != f.block_size() || h.block_cols != f.block_size() ||
      h.pattern->n_nodes() * h.block_rows != f.n_dofs() ||
      h.pattern->symmetry() != mesh::Symmetry::General || !h.pattern->has_diagonal()) {
    throw SolverError("newton: iteration " + std::to_string(k) +
                      ": the Hessian is not a General block-CSR matrix of " +
                      std::to_string(f.n_dofs()) + " DOFs in blocks of " +
                      std::to_string(f.block_size()));
  }
}

double mean_abs_diagonal(const mesh::BlockCsr<double>& h) {
  const mesh::BlockPattern& p = *h.pattern;
  const int b = h.block_rows;
  double s = 0;
  for (int64_t r = 0; r < p.n_nodes(); ++r) {
    const double* blk = h.block(p.diag_index(r));
    for (int i = 0; i < b; ++i) s += std::abs(blk[i * b + i]);
  }
  const double mean = s / static_cast<double>(p.n_nodes() * b);
  return mean > 0 && std::isfinite(mean) ? mean : 1.0;
}

void add_to_diagonal(mesh::BlockCsr<double>& h, double shift) {
  const mesh::BlockPattern& p = *h.pattern;
  const int b = h.block_rows;
  for (int64_t r = 0; r < p.n_nodes(); ++r) {
    double* blk = h.block(p.diag_index(r));
    for (int i = 0; i < b; ++i) blk[i * b + i] += shift;
  }
}

// The direction from H + shift I for shift = 0, then initial_shift x scale growing by
// shift_growth, until `solve` gives a descent direction; else steepest descent. `solve` returns
// false when the shifted system is not positive definite.
using ShiftedSolve = std::function<bool(double shift, std::vector<double>& dx, int& iterations)>;

// `scale` (the Hessian's mean |diagonal|) is asked for only when a shift is needed: on the GPU it
// costs a kernel and a synchronisation, and an unshifted solve usually succeeds.
Direction shifted_newton(const Iterate& it, const NewtonOptions& o,
                         const std::function<double()>& scale, const ShiftedSolve& solve,
                         Direction d, const Stopwatch& linear) {
  std::vector<double> rhs(it.gradient.begin(), it.gradient.end());
  for (double& v : rhs) v = -v;
  double shift = 0, last_shift = 0;
  for (int attempt = 0; attempt <= o.max_shift_tries; ++attempt) {
    last_shift = shift;
    std::vector<double> dx;
    if (solve(shift, dx, d.linear_iterations) && all_finite(dx)) {
      o.pinned.zero(dx);
      const double slope = dot(it.gradient, dx);
      if (slope < -o.descent_threshold * it.gradient_norm * norm(dx)) {
        d.dx = std::move(dx);
        d.shift = shift;
        d.linear_solve_seconds = linear.seconds();
        return d;
      }
    }
    shift = shift == 0 ? o.initial_shift * scale() : shift * o.shift_growth;
  }
  // No shift helped: steepest descent, which the line search can always shorten enough, first
  // tried as the step of the Hessian's mean diagonal.
  d.dx = std::move(rhs);
  d.initial_step = 1 / scale();
  d.fallback = true;
  d.newton_step = false;
  d.shift = last_shift;
  d.linear_solve_seconds = linear.seconds();
  return d;
}

// The GPU's pieces of a Newton solve with LinearSolver::DevicePcg, made on first use.
struct DeviceSolve {
  std::unique_ptr<DevicePcg> pcg;
  cuda::DeviceBuffer rhs, dx, mask;
};

Direction device_direction(Objective& f, const Iterate& it, const NewtonOptions& o,
                           DeviceSolve& g) {
  Direction d;
  d.newton_step = true;
  const Stopwatch assembly;
  const assembly::DeviceBsr* h = f.device_hessian(it.x);
  if (h == nullptr) {
    throw SolverError("newton: iteration " + std::to_string(it.iteration) +
                      ": the GPU PCG needs an objective that evaluates on a GPU (an "
                      "AssemblerObjective on the CUDA backend)");
  }
  d.assembly_seconds = assembly.seconds();
  const Stopwatch linear;
  const int64_t n = f.n_dofs();
  if (!g.pcg) {
    g.pcg = std::make_unique<DevicePcg>(n / f.block_size(), f.block_size());
    g.rhs = cuda::DeviceBuffer(n * sizeof(double));
    g.dx = cuda::DeviceBuffer(n * sizeof(double));
    if (!o.pinned.empty()) {
      std::vector<double> mask(n);
      for (int64_t i = 0; i < n; ++i) mask[i] = o.pinned.is_pinned(i) ? 0.0 : 1.0;
      g.mask = cuda::DeviceBuffer::from(mask);
    }
  }
  std::vector<double> rhs(it.gradient.begin(), it.gradient.end());
  for (double& v : rhs) v = -v;
  g.rhs.upload(rhs.data(), rhs.size() * sizeof(double));
  const auto scale = [&] { return g.pcg->mean_abs_diagonal(*h); };
  const auto* mask = g.mask.bytes() ? reinterpret_cast<const double*>(g.mask.get()) : nullptr;
  const ShiftedSolve solve = [&](double shift, std::vector<double>& dx, int& iterations) {
    const PcgResult r = g.pcg->solve(*h, reinterpret_cast<const double*>(g.rhs.get()),
                                     reinterpret_cast<double*>(g.dx.get()), mask, o.pcg, shift);
    iterations += r.iterations;
    if (r.negative_curvature) return false;
    dx = g.dx.to_vector<double>();
    return true;
  };
  return shifted_newton(it, o, scale, solve, d, linear);
}

}  // namespace

SolveResult newton(Objective& f, std::span<const double> x0, const NewtonOptions& o) {
  SparseCholesky cholesky;  // keeps its symbolic analysis across iterations
  DeviceSolve device;
  const DirectionRule rule = [&](const Iterate& it) {
    if (o.linear_solver == LinearSolver::DevicePcg) return device_direction(f, it, o, device);
    Direction d;
    d.newton_step = true;
    const Stopwatch assembly;
    mesh::BlockCsr<double> h = f.hessian(it.x);
    d.assembly_seconds = assembly.seconds();
    check_hessian(h, f, it.iteration);

    const Stopwatch linear;
    o.pinned.apply_identity(h);
    const auto scale = [&] { return mean_abs_diagonal(h); };
    const ShiftedSolve solve = [&](double shift, std::vector<double>& dx, int& iterations) {
      std::optional<mesh::BlockCsr<double>> shifted;
      if (shift > 0) {
        shifted = h;
        add_to_diagonal(*shifted, shift);
      }
      const mesh::BlockCsr<double>& a = shifted ? *shifted : h;
      std::vector<double> rhs(it.gradient.begin(), it.gradient.end());
      for (double& v : rhs) v = -v;
      if (o.linear_solver == LinearSolver::SparseCholesky) {
        try {
          cholesky.factorize(a);
          dx = cholesky.solve(rhs);
          return true;
        } catch (const NotPositiveDefiniteError&) {
          return false;  // shift and retry
        }
      }
      dx.assign(rhs.size(), 0.0);
      const PcgResult r = block_pcg(a, rhs, dx, o.pcg);
      iterations += r.iterations;
      return !r.negative_curvature;
    };
    return shifted_newton(it, o, scale, solve, d, linear);
  };
  return descent_loop("newton", f, x0, o, rule);
}

}  // namespace dualjit::solvers
