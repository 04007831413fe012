#include "solvers/vector_ops.h"

#include <cmath>
#include <cstdint>

namespace dualjit::solvers {

namespace {
// Below this length a parallel region costs more than the loop.
constexpr int64_t kParallelLength = 1 << 14;
}  // namespace

double dot(std::span<const double> a, std::span<const double> b) {
  const int64_t n = static_cast<int64_t>(a.size());
  double s = 0;
#pragma omp parallel for reduction(+ : s) if (n > kParallelLength)
  for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

double norm(std::span<const double> a) {
  return std::sqrt(dot(a, a));
}

void axpy(double a, std::span<const double> x, std::span<double> y) {
  const int64_t n = static_cast<int64_t>(x.size());
#pragma omp parallel for if (n > kParallelLength)
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}

bool all_finite(std::span<const double> a) {
  for (double v : a) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

}  // namespace dualjit::solvers
