#include "solvers/gmres.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "solvers/gmres_cycles.h"
#include "solvers/solver_error.h"
#include "solvers/vector_ops.h"

namespace dualjit::solvers {

namespace {

// When modified Gram-Schmidt leaves less than this fraction of the new vector's norm, the
// cancellation has cost it enough digits that one more pass is needed ("twice is enough",
// Kahan-Parlett's 1/sqrt(2)).
constexpr double kReorthogonalise = 0.7071067811865476;

// The Arnoldi process in host memory, modified Gram-Schmidt with a second pass when needed.
class HostArnoldi final : public ArnoldiProcess {
 public:
  HostArnoldi(const LinearOperator& a, const LinearOperator& m, std::span<const double> b,
              std::span<double> x, int dim)
      : a_(a),
        m_(m),
        b_(b),
        x_(x),
        n_(b.size()),
        r_(n_),
        w_(n_),
        z_(n_),
        basis_(static_cast<size_t>(dim + 1) * n_) {}

  double residual() override {
    a_(x_, r_);
    for (size_t i = 0; i < n_; ++i) r_[i] = b_[i] - r_[i];
    return norm(r_);
  }
  void start(double beta) override {
    for (size_t i = 0; i < n_; ++i) basis_[i] = r_[i] / beta;
  }
  double step(int j, double* h) override {
    precondition(v(j), z_);
    a_(z_, w_);
    const double w_norm0 = norm(w_);
    for (int i = 0; i <= j; ++i) {
      h[i] = dot(w_, v(i));
      axpy(-h[i], v(i), w_);
    }
    double w_norm = norm(w_);
    if (w_norm < kReorthogonalise * w_norm0) {
      for (int i = 0; i <= j; ++i) {
        const double c = dot(w_, v(i));
        h[i] += c;
        axpy(-c, v(i), w_);
      }
      w_norm = norm(w_);
    }
    h[j + 1] = w_norm;
    return w_norm0;
  }
  void extend(int j, double norm) override {
    const std::span<double> next = v(j + 1);
    for (size_t i = 0; i < n_; ++i) next[i] = w_[i] / norm;
  }
  void update(const std::vector<double>& y, int k) override {
    std::fill(w_.begin(), w_.end(), 0.0);
    for (int i = 0; i < k; ++i) axpy(y[i], v(i), w_);
    precondition(w_, z_);
    axpy(1, z_, x_);
  }

 private:
  std::span<double> v(int i) { return std::span<double>(basis_.data() + i * n_, n_); }
  void precondition(std::span<const double> r, std::span<double> z) {
    if (m_) {
      m_(r, z);
    } else {
      std::copy(r.begin(), r.end(), z.begin());
    }
  }

  const LinearOperator& a_;
  const LinearOperator& m_;
  std::span<const double> b_;
  std::span<double> x_;
  size_t n_;
  std::vector<double> r_, w_, z_, basis_;  // basis_: V, one Krylov vector after another
};

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
  HostArnoldi arnoldi(a, m, b, x, o.restart);
  return run_gmres_cycles(arnoldi, o, "gmres");
}

}  // namespace dualjit::solvers
