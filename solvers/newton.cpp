#include "solvers/newton.h"

#include <cmath>
#include <optional>
#include <string>

#include "solvers/descent_loop.h"
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

}  // namespace

SolveResult newton(Objective& f, std::span<const double> x0, const NewtonOptions& o) {
  SparseCholesky cholesky;  // keeps its symbolic analysis across iterations
  const DirectionRule rule = [&](const Iterate& it) {
    Direction d;
    d.newton_step = true;
    const Stopwatch assembly;
    mesh::BlockCsr<double> h = f.hessian(it.x);
    d.assembly_seconds = assembly.seconds();
    check_hessian(h, f, it.iteration);

    const Stopwatch linear;
    o.pinned.apply_identity(h);
    std::vector<double> rhs(it.gradient.begin(), it.gradient.end());
    for (double& v : rhs) v = -v;
    const double scale = mean_abs_diagonal(h);
    double shift = 0, last_shift = 0;
    for (int attempt = 0; attempt <= o.max_shift_tries; ++attempt) {
      last_shift = shift;
      std::optional<mesh::BlockCsr<double>> shifted;
      if (shift > 0) {
        shifted = h;
        add_to_diagonal(*shifted, shift);
      }
      const mesh::BlockCsr<double>& a = shifted ? *shifted : h;
      std::vector<double> dx;
      bool solved = false;
      if (o.linear_solver == LinearSolver::SparseCholesky) {
        try {
          cholesky.factorize(a);
          dx = cholesky.solve(rhs);
          solved = true;
        } catch (const NotPositiveDefiniteError&) {
          solved = false;  // shift and retry below
        }
      } else {
        dx.assign(rhs.size(), 0.0);
        const PcgResult r = block_pcg(a, rhs, dx, o.pcg);
        d.linear_iterations += r.iterations;
        solved = !r.negative_curvature;
      }
      if (solved && all_finite(dx)) {
        o.pinned.zero(dx);
        const double slope = dot(it.gradient, dx);
        if (slope < -o.descent_threshold * it.gradient_norm * norm(dx)) {
          d.dx = std::move(dx);
          d.shift = shift;
          d.linear_solve_seconds = linear.seconds();
          return d;
        }
      }
      shift = shift == 0 ? o.initial_shift * scale : shift * o.shift_growth;
    }
    // No shift helped: steepest descent, which the line search can always shorten enough, first
    // tried as the step of the Hessian's mean diagonal.
    d.dx = std::move(rhs);
    d.initial_step = 1 / scale;
    d.fallback = true;
    d.newton_step = false;
    d.shift = last_shift;
    d.linear_solve_seconds = linear.seconds();
    return d;
  };
  return descent_loop("newton", f, x0, o, rule);
}

}  // namespace dualjit::solvers
