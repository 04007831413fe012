// One element's derivatives from the reference evaluator against finite differences, for the
// energy tests: the gradient against central differences of the value, the Hessian against
// central differences of the gradient (and symmetric), H v against the HVP.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "dsl/reference_evaluator.h"

namespace dualjit::test {

// Gradient and Hessian of one element against central differences of the value and of the
// gradient; the Hessian's symmetry; H v against the HVP.
inline void check_derivatives(const Kernel& k, std::vector<double> x, const std::vector<double>& p,
                              const std::vector<double>& u, std::mt19937_64& rng) {
  const HessianResult r = evaluate_hessian(k, {x, p, u});
  const int n = static_cast<int>(x.size());
  double gscale = 1e-12, hscale = 1e-12;
  for (double g : r.gradient) gscale = std::max(gscale, std::abs(g));
  for (double h : r.hessian) hscale = std::max(hscale, std::abs(h));
  for (int i = 0; i < n; ++i) {
    const double h = 1e-6 * std::max(1.0, std::abs(x[i]));
    auto xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    const double fd =
        (evaluate_values(k, {xp, p, u})[0] - evaluate_values(k, {xm, p, u})[0]) / (2 * h);
    CHECK(std::abs(r.gradient[i] - fd) <= 1e-6 * gscale);
    const auto gp = evaluate_hessian(k, {xp, p, u}).gradient;
    const auto gm = evaluate_hessian(k, {xm, p, u}).gradient;
    for (int j = 0; j < n; ++j) {
      CHECK(std::abs(r.hessian[j * n + i] - (gp[j] - gm[j]) / (2 * h)) <= 1e-6 * hscale);
      CHECK(r.hessian[i * n + j] == doctest::Approx(r.hessian[j * n + i]).epsilon(1e-12));
    }
  }
  std::uniform_real_distribution<double> unit(-1, 1);
  std::vector<double> v(n);
  for (double& c : v) c = unit(rng);
  const HvpResult hv = evaluate_hvp(k, {x, p, u}, v);
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j) s += r.hessian[i * n + j] * v[j];
    CHECK(hv.hvp[i] == doctest::Approx(s).epsilon(1e-10).scale(hscale));
  }
}

}  // namespace dualjit::test
