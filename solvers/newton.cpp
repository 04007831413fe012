#include "solvers/newton.h"

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "solvers/descent_loop.h"
#include "solvers/device_pcg.h"
#include "solvers/solver_error.h"
#include "solvers/sparse_cholesky.h"
#include "solvers/stopwatch.h"

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
// shift_growth, until `solve` gives a descent direction; else steepest descent. `solve` writes
// dx (a vector of the objective's space) and returns false when the shifted system is not
// positive definite.
using ShiftedSolve = std::function<bool(double shift, Vector& dx, int& iterations)>;

// `scale` (the Hessian's mean |diagonal|) is asked for only when a shift is needed: on the GPU it
// costs a kernel and a synchronisation, and an unshifted solve usually succeeds.
Direction shifted_newton(const Iterate& it, const NewtonOptions& o,
                         const std::function<double()>& scale, const ShiftedSolve& solve,
                         Direction d, const Stopwatch& linear, Vector& dx) {
  const VectorSpace& v = it.space;
  double shift = 0, last_shift = 0;
  for (int attempt = 0; attempt <= o.max_shift_tries; ++attempt) {
    last_shift = shift;
    if (solve(shift, dx, d.linear_iterations)) {
      if (it.free) v.apply_mask(*it.free, dx);
      // g.dx and |dx|^2 in one batch; the slope also serves the decrement and the line search.
      const Vector* a[] = {&it.gradient, &dx};
      const Vector* b[] = {&dx, &dx};
      const std::vector<double> p = v.dots(a, b);
      const double slope = p[0], dx_norm = std::sqrt(p[1]);  // not finite when dx is not
      if (std::isfinite(dx_norm) && slope < -o.descent_threshold * it.gradient_norm * dx_norm) {
        d.slope = slope;
        d.shift = shift;
        d.linear_solve_seconds = linear.seconds();
        return d;
      }
    }
    shift = shift == 0 ? o.initial_shift * scale() : shift * o.shift_growth;
  }
  // No shift helped: steepest descent, which the line search can always shorten enough, first
  // tried as the step of the Hessian's mean diagonal.
  v.axpby(-1, it.gradient, 0, dx);
  d.slope = -it.gradient_norm * it.gradient_norm;
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
  std::optional<Vector> rhs;
};

Direction device_direction(Objective& f, const Iterate& it, const NewtonOptions& o, DeviceSolve& g,
                           Vector& dx) {
  Direction d;
  d.newton_step = true;
  const Stopwatch assembly;
  const assembly::DeviceBsr* h = f.device_hessian(it.x);
  if (h == nullptr || !it.space.on_device()) {
    throw SolverError("newton: iteration " + std::to_string(it.iteration) +
                      ": the GPU PCG needs an objective that evaluates on a GPU (an "
                      "AssemblerObjective on the CUDA backend)");
  }
  d.assembly_seconds = assembly.seconds();
  const Stopwatch linear;
  const int64_t n = f.n_dofs();
  if (!g.pcg) {
    g.pcg = std::make_unique<DevicePcg>(n / f.block_size(), f.block_size());
    g.rhs = it.space.zeros(n);
  }
  it.space.axpby(-1, it.gradient, 0, *g.rhs);
  const auto scale = [&] { return g.pcg->mean_abs_diagonal(*h); };
  const double* mask = it.free ? it.free->data() : nullptr;
  const ShiftedSolve solve = [&](double shift, Vector& dx, int& iterations) {
    const PcgResult r = g.pcg->solve(*h, g.rhs->data(), dx.data(), mask, o.pcg, shift);
    iterations += r.iterations;
    return !r.negative_curvature;
  };
  return shifted_newton(it, o, scale, solve, std::move(d), linear, dx);
}

}  // namespace

SolveResult newton(Objective& f, std::span<const double> x0, const NewtonOptions& o) {
  SparseCholesky cholesky;  // keeps its symbolic analysis across iterations
  DeviceSolve device;
  const DirectionRule rule = [&](const Iterate& it, Vector& dx) {
    if (o.linear_solver == LinearSolver::DevicePcg) {
      return device_direction(f, it, o, device, dx);
    }
    Direction d;
    d.newton_step = true;
    const Stopwatch assembly;
    mesh::BlockCsr<double> h = f.hessian(it.x);
    d.assembly_seconds = assembly.seconds();
    check_hessian(h, f, it.iteration);

    const Stopwatch linear;
    o.pinned.apply_identity(h);
    const auto scale = [&] { return mean_abs_diagonal(h); };
    // The host solvers work on host vectors: -g comes over once per iteration (a copy on a
    // host objective), dx goes back per solve.
    std::vector<double> rhs = it.space.to_host(it.gradient);
    for (double& v : rhs) v = -v;
    const ShiftedSolve solve = [&](double shift, Vector& out, int& iterations) {
      std::optional<mesh::BlockCsr<double>> shifted;
      if (shift > 0) {
        shifted = h;
        add_to_diagonal(*shifted, shift);
      }
      const mesh::BlockCsr<double>& a = shifted ? *shifted : h;
      std::vector<double> x;
      if (o.linear_solver == LinearSolver::SparseCholesky) {
        try {
          cholesky.factorize(a);
          x = cholesky.solve(rhs);
        } catch (const NotPositiveDefiniteError&) {
          return false;  // shift and retry
        }
      } else {
        x.assign(rhs.size(), 0.0);
        const PcgResult r = block_pcg(a, rhs, x, o.pcg);
        iterations += r.iterations;
        if (r.negative_curvature) return false;
      }
      out = it.space.from_host(x);
      return true;
    };
    return shifted_newton(it, o, scale, solve, std::move(d), linear, dx);
  };
  return descent_loop("newton", f, x0, o, rule);
}

}  // namespace dualjit::solvers
