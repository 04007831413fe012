#include "solvers/gmres.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "solvers/givens_least_squares.h"
#include "solvers/solver_error.h"
#include "solvers/vector_ops.h"

namespace dualjit::solvers {

namespace {

// When modified Gram-Schmidt leaves less than this fraction of the new vector's norm, the
// cancellation has cost it enough digits that one more pass is needed ("twice is enough",
// Kahan-Parlett's 1/sqrt(2)).
constexpr double kReorthogonalise = 0.7071067811865476;
// A new vector below this fraction of ||A z|| lies in the Krylov space to rounding: the solution
// of the preconditioned system is in the space (happy breakdown). Normalising it would divide
// noise by almost zero.
constexpr double kBreakdown = 1e-14;

// r = b - A x
void residual(const LinearOperator& a, std::span<const double> b, std::span<const double> x,
              std::span<double> r) {
  a(x, r);
  for (size_t i = 0; i < b.size(); ++i) r[i] = b[i] - r[i];
}

}  // namespace

GmresResult gmres(const LinearOperator& a, const LinearOperator& m, std::span<const double> b,
                  std::span<double> x, const GmresOptions& o) {
  if (!a) throw SolverError("gmres: no operator A");
  if (b.size() != x.size()) {
    throw SolverError("gmres: b has " + std::to_string(b.size()) + " values, x " +
                      std::to_string(x.size()));
  }
  if (o.restart < 1 || o.max_iterations < 0 || !(o.rtol >= 0) || !(o.atol >= 0) ||
      !std::isfinite(o.rtol) || !std::isfinite(o.atol)) {
    throw SolverError("gmres: invalid options: restart " + std::to_string(o.restart) +
                      " (>= 1), max_iterations " + std::to_string(o.max_iterations) +
                      " (>= 0), rtol " + std::to_string(o.rtol) + " and atol " +
                      std::to_string(o.atol) + " (finite, >= 0)");
  }
  const size_t n = b.size();
  const int dim = o.restart;
  const size_t h_rows = static_cast<size_t>(dim) + 1;  // basis vectors, entries of a column
  const auto precondition = [&](std::span<const double> r, std::span<double> z) {
    if (m) {
      m(r, z);
    } else {
      std::copy(r.begin(), r.end(), z.begin());
    }
  };

  GmresResult res;
  std::vector<double> r(n), w(n), z(n);
  residual(a, b, x, r);
  double beta = norm(r);
  if (!std::isfinite(beta)) {
    throw SolverError("gmres: the initial residual (iteration 0) is not finite");
  }
  res.initial_residual = beta;
  res.residual = beta;
  const double target = std::max(o.rtol * beta, o.atol);
  if (beta <= target) {
    res.converged = true;
    return res;
  }

  std::vector<double> basis(h_rows * n);  // V, one Krylov vector after another
  std::vector<double> h(h_rows);
  GivensLeastSquares least_squares(dim);
  const auto v = [&](int i) { return std::span<double>(basis.data() + i * n, n); };
  while (res.iterations < o.max_iterations) {
    for (size_t i = 0; i < n; ++i) basis[i] = r[i] / beta;
    least_squares.reset(beta);
    // A M^-1 maps the Krylov space into itself and the residual is not zero there: the
    // preconditioned operator is singular on it and no restart can do better.
    bool stagnated = false;
    while (least_squares.columns() < dim && res.iterations < o.max_iterations) {
      const int j = least_squares.columns();
      precondition(v(j), z);
      a(z, w);
      ++res.iterations;
      const double w_norm0 = norm(w);
      for (int i = 0; i <= j; ++i) {
        h[i] = dot(w, v(i));
        axpy(-h[i], v(i), w);
      }
      double w_norm = norm(w);
      if (w_norm < kReorthogonalise * w_norm0) {
        for (int i = 0; i <= j; ++i) {
          const double c = dot(w, v(i));
          h[i] += c;
          axpy(-c, v(i), w);
        }
        w_norm = norm(w);
      }
      h[j + 1] = w_norm;
      if (!std::isfinite(w_norm0) || !all_finite(std::span<const double>(h.data(), j + 2))) {
        throw SolverError("gmres: A M^-1 v is not finite at iteration " +
                          std::to_string(res.iterations));
      }
      const double estimate = least_squares.add_column(h.data());
      if (estimate < 0) {
        // This column adds nothing to the least-squares problem (and would be a zero pivot).
        res.history.push_back(least_squares.residual());
        stagnated = true;
        break;
      }
      res.history.push_back(estimate);
      if (estimate <= target || w_norm <= kBreakdown * w_norm0) break;
      const std::span<double> next = v(j + 1);
      for (size_t i = 0; i < n; ++i) next[i] = w[i] / w_norm;
    }

    // x += M^-1 V y, y = R^-1 g.
    const int k = least_squares.columns();
    if (k > 0) {
      const std::vector<double>& y = least_squares.solve();
      std::fill(w.begin(), w.end(), 0.0);
      for (int i = 0; i < k; ++i) axpy(y[i], v(i), w);
      precondition(w, z);
      axpy(1, z, x);
    }
    // The true residual, not the estimate: the restart starts from it and converged goes by it
    // (the recurrence drifts from it in the last digits).
    residual(a, b, x, r);
    beta = norm(r);
    if (!std::isfinite(beta)) {
      throw SolverError("gmres: the residual is not finite after iteration " +
                        std::to_string(res.iterations));
    }
    res.residual = beta;
    if (beta <= target) {
      res.converged = true;
      break;
    }
    if (stagnated) break;
  }
  return res;
}

}  // namespace dualjit::solvers
