#include "solvers/host_bdf_engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include <Eigen/Dense>

#include "solvers/bdf_coefficients.h"
#include "solvers/stopwatch.h"

namespace dualjit::solvers {
namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::Map<Eigen::VectorXd>;
using ConstVector = Eigen::Map<const Eigen::VectorXd>;
constexpr int K = bdf::kDifferences;

class HostBdfEngine final : public BdfEngine {
 public:
  HostBdfEngine(StiffSystem& system, const StiffOptions& options, int64_t capacity)
      : system_(system), options_(options), n_(system.size()) {
    const size_t rows = static_cast<size_t>(capacity) * n_;
    diff_.resize(rows * K);
    y_.resize(rows);
    d_.resize(rows);
    psi_.resize(rows);
    scale_.resize(rows);
    gathered_.resize(rows);
    jac_.resize(static_cast<size_t>(capacity));
    lu_.resize(static_cast<size_t>(capacity));
    const auto cap = static_cast<size_t>(capacity);
    control_.resize(cap);
    order_.resize(cap);
    c_.resize(cap);
    rescale_.resize(cap);
    wants_.resize(cap);
    outcome_.resize(cap);
    accepted_.resize(cap);
    singular_.assign(static_cast<size_t>(capacity), 0);
    c_lu_.assign(static_cast<size_t>(capacity), 0.0);
    newton_tol_ = bdf::newton_tolerance(options.rtol);
  }

  void start(std::span<const double> y, std::span<const bdf::StepControl> control) override {
    const int n = n_;
    m_ = static_cast<int64_t>(y.size()) / n;
    std::copy(control.begin(), control.end(), control_.begin());
    Stopwatch st;
    const double* f = system_.rhs(m_, y.data());
    times_.rhs_rows += m_;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < m_; ++r)
      for (int i = 0; i < n; ++i) {
        diff(r, 0)[i] = y[r * n + i];
        diff(r, 1)[i] = control_[r].h * f[r * n + i];
      }
    times_.stages += st.seconds();
    Stopwatch jw;
    const double* jac = system_.jacobian(m_, y.data());
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < m_; ++r) jac_[r] = Eigen::Map<const RowMatrix>(jac + r * n * n, n, n);
    times_.jacobian += jw.seconds();
  }

  void running(std::span<uint8_t> running) override {
    for (int64_t r = 0; r < m_; ++r) running[r] = control_[r].running;
  }

  void store(std::span<const int32_t> rows, std::span<double> y,
             std::span<bdf::StepControl> control) override {
    for (size_t k = 0; k < rows.size(); ++k) {
      std::copy_n(diff(rows[k], 0), n_, &y[k * n_]);
      control[k] = control_[rows[k]];
    }
  }

  BdfRound plan() override {
    Stopwatch sc;
    const int64_t m = m_;
    // Per row on many threads (a round's control over 1e5 systems is otherwise as long as its
    // arithmetic); the lists of rows that need a Jacobian or an LU after, in row order.
#pragma omp parallel for schedule(static) if (m > 4096)
    for (int64_t r = 0; r < m; ++r) {
      const bdf::StepPlan p = bdf::plan_step(control_[r], options_.max_step, bdf::alpha.data());
      order_[r] = p.order;
      c_[r] = p.c;
      rescale_[r] = p.rescale;
      wants_[r] = static_cast<uint8_t>(p.wants);
    }
    refresh_.clear(), refactor_.clear();
    for (int64_t r = 0; r < m; ++r) {
      if (wants_[r] & bdf::kWantsJacobian) refresh_.push_back(static_cast<int32_t>(r));
      if (wants_[r] & bdf::kWantsLu) refactor_.push_back(static_cast<int32_t>(r));
    }
    times_.control += sc.seconds();
    return {static_cast<int64_t>(refresh_.size()), static_cast<int64_t>(refactor_.size())};
  }

  int64_t attempt() override {
    const int n = n_;
    const int64_t m = m_;
    Stopwatch st;
    // Rescale the differences, predict, and set up the iteration.
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < m; ++r) {
      const int q = order_[r];
      outcome_[r] = {};
      if (rescale_[r] != 1.0) {
        std::array<std::array<double, bdf::kMaxOrder + 1>, bdf::kMaxOrder + 1> ru;
        bdf::rescale_matrix(q, rescale_[r], ru);
        std::array<double, bdf::kMaxOrder + 1> v;
        for (int i = 0; i < n; ++i) {
          for (int j = 0; j <= q; ++j) {
            v[j] = 0.0;
            for (int k = 0; k <= q; ++k) v[j] += ru[k][j] * diff(r, k)[i];
          }
          for (int j = 0; j <= q; ++j) diff(r, j)[i] = v[j];
        }
      }
      for (int i = 0; i < n; ++i) {
        double pred = 0.0, psi = 0.0;
        for (int j = 0; j <= q; ++j) pred += diff(r, j)[i];
        for (int j = 1; j <= q; ++j) psi += bdf::gamma[j] * diff(r, j)[i];
        const size_t at = static_cast<size_t>(r) * n + i;
        y_[at] = pred;
        psi_[at] = psi / bdf::alpha[q];
        d_[at] = 0.0;
        scale_[at] = options_.atol + options_.rtol * std::abs(pred);
      }
    }
    times_.stages += st.seconds();

    Stopwatch jw;
    const auto fresh = static_cast<int64_t>(refresh_.size());
    if (fresh > 0) {
      for (int64_t k = 0; k < fresh; ++k)
        std::copy_n(&y_[static_cast<size_t>(refresh_[k]) * n], n, &gathered_[k * n]);
      const double* jac = system_.jacobian(fresh, gathered_.data());
#pragma omp parallel for schedule(static)
      for (int64_t k = 0; k < fresh; ++k)
        jac_[refresh_[k]] = Eigen::Map<const RowMatrix>(jac + k * n * n, n, n);
    }
    times_.jacobian += jw.seconds();

    Stopwatch fw;
    std::vector<uint8_t> state(static_cast<size_t>(m), bdf::kNewtonIterating);
    const auto factored = static_cast<int64_t>(refactor_.size());
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < factored; ++k) {
      const int32_t r = refactor_[k];
      RowMatrix mat = -c_[r] * jac_[r];
      mat.diagonal().array() += 1.0;
      lu_[r].compute(mat);
      c_lu_[r] = c_[r];
      singular_check(r);
    }
    for (int64_t r = 0; r < m; ++r)
      if (singular_[r]) state[r] = 3;
    times_.factor += fw.seconds();

    Stopwatch nw;
    std::vector<double> norm_old(static_cast<size_t>(m), -1.0);
    std::vector<int64_t> f_at(static_cast<size_t>(m));  // row r's f at row f_at[r] of f
    for (int k = 0; k < bdf::kNewtonIterations; ++k) {
      const auto iterating = std::count(state.begin(), state.end(), bdf::kNewtonIterating);
      if (iterating == 0) break;
      times_.newton_sweeps += 1;
      times_.newton_rows += iterating;
      Stopwatch fs;
      // f at the iterating rows only, gathered once some have stopped: f is most of an
      // iteration's cost, and most rows stop after two.
      const double* f;
      if (iterating == m) {
        f = system_.rhs(m, y_.data());
        std::iota(f_at.begin(), f_at.end(), int64_t{0});
      } else {
        int64_t j = 0;
        for (int64_t r = 0; r < m; ++r) {
          if (state[r] != bdf::kNewtonIterating) continue;
          std::copy_n(&y_[static_cast<size_t>(r) * n], n, &gathered_[static_cast<size_t>(j) * n]);
          f_at[r] = j++;
        }
        f = system_.rhs(iterating, gathered_.data());
      }
      times_.rhs_rows += iterating;
      times_.rhs += fs.seconds();
      Stopwatch ns;
#pragma omp parallel for schedule(static)
      for (int64_t r = 0; r < m; ++r) {
        if (state[r] != bdf::kNewtonIterating) continue;
        const size_t at = static_cast<size_t>(r) * n;
        const double* fr = f + f_at[r] * n;
        outcome_[r].iterations = k + 1;
        if (options_.peak_component >= 0) outcome_[r].peak = fr[options_.peak_component];
        Eigen::VectorXd b =
            c_[r] * ConstVector(fr, n) - ConstVector(&psi_[at], n) - ConstVector(&d_[at], n);
        const Eigen::VectorXd dy = bdf::lu_correction_scale(c_[r], c_lu_[r]) * lu_[r].solve(b);
        double sum = 0.0;
        for (int i = 0; i < n; ++i) sum += (dy[i] / scale_[at + i]) * (dy[i] / scale_[at + i]);
        const double norm = std::sqrt(sum / n);
        state[r] = bdf::newton_verdict(norm, norm_old[r], k, newton_tol_);
        if (state[r] == 2 || state[r] == 0) continue;
        Vector(&y_[at], n) += dy;
        Vector(&d_[at], n) += dy;
        norm_old[r] = norm;
      }
      times_.newton += ns.seconds();
    }
    times_.stages += nw.seconds();

    Stopwatch ew;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < m; ++r) {
      bdf::StepOutcome& out = outcome_[r];
      out.converged = state[r] == bdf::kNewtonIterating ? 0 : state[r];
      if (out.converged != 1) continue;
      const int q = order_[r];
      double e = 0, lower = 0, higher = 0;
      for (int i = 0; i < n; ++i) {
        const size_t at = static_cast<size_t>(r) * n + i;
        const double s = options_.atol + options_.rtol * std::abs(y_[at]), d = d_[at];
        e += (d / s) * (d / s);
        if (q > 1) lower += ((diff(r, q)[i] + d) / s) * ((diff(r, q)[i] + d) / s);
        if (q < bdf::kMaxOrder)
          higher += ((d - diff(r, q + 1)[i]) / s) * ((d - diff(r, q + 1)[i]) / s);
        if (!std::isfinite(y_[at])) e = std::numeric_limits<double>::quiet_NaN();
      }
      constexpr double inf = std::numeric_limits<double>::infinity();
      out.err = bdf::error_const[q] * std::sqrt(e / n);
      out.err_lower = q > 1 ? bdf::error_const[q - 1] * std::sqrt(lower / n) : inf;
      out.err_higher = q < bdf::kMaxOrder ? bdf::error_const[q + 1] * std::sqrt(higher / n) : inf;
    }
    times_.stages += ew.seconds();

    Stopwatch sc;
    const bool track_peak = options_.peak_component >= 0;
    int64_t running = 0;
#pragma omp parallel for schedule(static) reduction(+ : running) if (m > 4096)
    for (int64_t r = 0; r < m; ++r) {
      accepted_[r] = bdf::conclude_step(control_[r], outcome_[r], options_.max_steps, track_peak);
      running += control_[r].running;
    }
    times_.control += sc.seconds();

    Stopwatch aw;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < m; ++r) {
      if (!accepted_[r]) continue;
      const int q = order_[r];
      for (int i = 0; i < n; ++i) {
        const double d = d_[static_cast<size_t>(r) * n + i];
        diff(r, q + 2)[i] = d - diff(r, q + 1)[i];
        diff(r, q + 1)[i] = d;
        for (int j = q; j >= 0; --j) diff(r, j)[i] += diff(r, j + 1)[i];
      }
    }
    times_.stages += aw.seconds();
    return running;
  }

  void compact(std::span<const int32_t> keep) override {
    const int n = n_;
    for (size_t r = 0; r < keep.size(); ++r) {
      const auto from = static_cast<size_t>(keep[r]);
      if (from == r) continue;
      std::copy_n(&diff_[from * K * n], K * n, &diff_[r * K * n]);
      jac_[r] = std::move(jac_[from]);
      lu_[r] = std::move(lu_[from]);
      singular_[r] = singular_[from];
      c_lu_[r] = c_lu_[from];
      control_[r] = control_[from];
    }
    m_ = static_cast<int64_t>(keep.size());
  }

  BdfTimes times() const override {
    return times_;
  }

 private:
  double* diff(int64_t r, int j) {
    return &diff_[(static_cast<size_t>(r) * K + j) * n_];
  }

  void singular_check(int32_t r) {
    const auto u = lu_[r].matrixLU().diagonal();
    singular_[r] = 0;
    for (int i = 0; i < n_; ++i)
      if (u[i] == 0.0) singular_[r] = 1;
  }

  StiffSystem& system_;
  StiffOptions options_;
  int n_;
  int64_t m_ = 0;
  double newton_tol_;
  std::vector<double> diff_, y_, d_, psi_, scale_, gathered_;
  std::vector<RowMatrix> jac_;
  std::vector<Eigen::PartialPivLU<RowMatrix>> lu_;
  std::vector<bdf::StepControl> control_;
  // The plan of the round: per row, and the rows needing a Jacobian or an LU.
  std::vector<int> order_;
  std::vector<double> c_, rescale_;
  std::vector<uint8_t> wants_;
  std::vector<int32_t> refresh_, refactor_;
  std::vector<bdf::StepOutcome> outcome_;
  std::vector<uint8_t> accepted_;
  std::vector<uint8_t> singular_;
  std::vector<double> c_lu_;  // the c each row's LU was factored with
  BdfTimes times_;
};

}  // namespace

std::unique_ptr<BdfEngine> make_host_bdf_engine(StiffSystem& system, const StiffOptions& options,
                                                int64_t capacity) {
  return std::make_unique<HostBdfEngine>(system, options, capacity);
}

}  // namespace dualjit::solvers
