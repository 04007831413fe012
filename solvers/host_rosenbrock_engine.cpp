#include "solvers/host_rosenbrock_engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Dense>

#include "solvers/stopwatch.h"

namespace dualjit::solvers {
namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class HostRosenbrockEngine final : public RosenbrockEngine {
 public:
  HostRosenbrockEngine(StiffSystem& system, const RosenbrockMethod& method,
                       const StiffOptions& options, int64_t capacity)
      : system_(system), method_(method), options_(options), n_(system.size()) {
    const size_t rows = static_cast<size_t>(capacity) * n_;
    y_.resize(rows);
    y_new_.resize(rows);
    stage_.resize(rows);
    k_.resize(static_cast<size_t>(method.stages) * rows);
    lu_.resize(static_cast<size_t>(capacity));
  }

  void load(std::span<const double> y) override {
    m_ = static_cast<int64_t>(y.size()) / n_;
    std::copy(y.begin(), y.end(), y_.begin());
  }

  void store(std::span<double> y) override { std::copy_n(y_.begin(), y.size(), y.begin()); }

  void attempt(std::span<const double> h, std::span<double> err, std::span<double> peak) override {
    const int n = n_;
    const int64_t m = m_;
    const size_t rows = static_cast<size_t>(m) * n;
    Stopwatch sw;
    const double* jac = system_.jacobian(m, y_.data());
    times_.jacobian += sw.seconds();
    Stopwatch fw;
    std::vector<uint8_t> singular(static_cast<size_t>(m), 0);
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < m; ++r) {
      RowMatrix a = -Eigen::Map<const RowMatrix>(jac + r * n * n, n, n);
      a.diagonal().array() += 1.0 / (h[r] * method_.gamma);
      lu_[r].compute(a);
      const auto d = lu_[r].matrixLU().diagonal();
      for (int i = 0; i < n; ++i)
        if (d[i] == 0.0) singular[r] = 1;  // NaN pivots propagate: a non-finite error
    }
    times_.factor += fw.seconds();
    Stopwatch st;
    double* k = k_.data();
    for (int s = 0; s < method_.stages; ++s) {
      const double* f = nullptr;
      if (s == 0) {
        f = system_.rhs(m, y_.data());
        if (options_.peak_component >= 0)
          for (int64_t r = 0; r < m; ++r) peak[r] = f[r * n + options_.peak_component];
      } else {
        stage_combination(method_.a[s], s, y_.data(), stage_.data(), rows);
        f = system_.rhs(m, stage_.data());
      }
#pragma omp parallel for schedule(static)
      for (int64_t r = 0; r < m; ++r) {
        Eigen::VectorXd b = Eigen::Map<const Eigen::VectorXd>(f + r * n, n);
        for (int j = 0; j < s; ++j)
          if (method_.c[s][j] != 0.0)
            b += (method_.c[s][j] / h[r]) *
                 Eigen::Map<const Eigen::VectorXd>(k + j * rows + r * n, n);
        Eigen::Map<Eigen::VectorXd>(k + s * rows + r * n, n) = lu_[r].solve(b);
      }
    }
    stage_combination(method_.m, method_.stages, y_.data(), y_new_.data(), rows);
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < m; ++r) {
      if (singular[r]) {
        err[r] = std::numeric_limits<double>::infinity();
        continue;
      }
      double sum = 0;
      for (int i = 0; i < n; ++i) {
        double e = 0;
        for (int j = 0; j < method_.stages; ++j) e += method_.e[j] * k[j * rows + r * n + i];
        const size_t at = static_cast<size_t>(r) * n + i;
        const double scale =
            options_.atol + options_.rtol * std::max(std::abs(y_[at]), std::abs(y_new_[at]));
        sum += (e / scale) * (e / scale);
        if (!std::isfinite(y_new_[at])) sum = std::numeric_limits<double>::quiet_NaN();
      }
      err[r] = std::sqrt(sum / n);
    }
    times_.stages += st.seconds();
  }

  void accept(std::span<const uint8_t> accepted) override {
    const int n = n_;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < m_; ++r)
      if (accepted[r]) std::copy_n(&y_new_[r * n], n, &y_[r * n]);
  }

  void compact(std::span<const int32_t> keep) override {
    for (size_t r = 0; r < keep.size(); ++r)
      if (keep[r] != static_cast<int32_t>(r))
        std::copy_n(&y_[static_cast<size_t>(keep[r]) * n_], n_, &y_[r * n_]);
    m_ = static_cast<int64_t>(keep.size());
  }

  RosenbrockTimes times() const override {
    return times_;
  }

 private:
  // out = y + sum_{j < s} coef[j] k_j over the packed rows.
  void stage_combination(const std::array<double, RosenbrockMethod::kMaxStages>& coef, int s,
                         const double* y, double* out, size_t rows) const {
    const double* k = k_.data();
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < static_cast<int64_t>(rows); ++i) {
      double v = y[i];
      for (int j = 0; j < s; ++j)
        if (coef[j] != 0.0) v += coef[j] * k[j * rows + i];
      out[i] = v;
    }
  }

  StiffSystem& system_;
  const RosenbrockMethod& method_;
  StiffOptions options_;
  int n_;
  int64_t m_ = 0;
  std::vector<double> y_, y_new_, stage_, k_;
  std::vector<Eigen::PartialPivLU<RowMatrix>> lu_;
  RosenbrockTimes times_;
};

}  // namespace

std::unique_ptr<RosenbrockEngine> make_host_rosenbrock_engine(StiffSystem& system,
                                                              const RosenbrockMethod& method,
                                                              const StiffOptions& options,
                                                              int64_t capacity) {
  return std::make_unique<HostRosenbrockEngine>(system, method, options, capacity);
}

}  // namespace dualjit::solvers
