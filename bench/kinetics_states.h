// The cell states the kinetics benchmarks (kinetics_rates, kinetics_tape_probe) run on, so that
// every program and its peers see the same cells for one seed.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/units.h"

namespace dualjit::bench {

// n cells x (T, Y_1..Y_ns), cell-major: T uniform in [1000, 2500] K, Y_k uniform in (0, 1]
// then normalised (every species present, so that no concentration is zero).
inline std::vector<double> random_kinetics_states(int64_t n, int ns, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> x(size_t(n) * (ns + 1));
  for (int64_t c = 0; c < n; ++c) {
    double* s = &x[size_t(c) * (ns + 1)];
    s[0] = 1000.0 + 1500.0 * u(rng);
    double total = 0;
    for (int k = 1; k <= ns; ++k) total += s[k] = 1e-12 + u(rng);
    for (int k = 1; k <= ns; ++k) s[k] /= total;
  }
  return x;
}

// The same cells as (T, C_1..C_ns) at pressure p: C_k = p Y_k / W_k / (R T sum_j Y_j / W_j).
inline std::vector<double> as_concentrations(std::vector<double> x, const kinetics::Mechanism& m,
                                             double p) {
  const size_t b = m.species.size() + 1;
  for (size_t c = 0; c < x.size() / b; ++c) {
    double* s = &x[c * b];
    double moles = 0;
    for (size_t k = 1; k < b; ++k) moles += s[k] /= m.species[k - 1].molecular_weight;
    const double scale = p / (kinetics::kGasConstant * s[0] * moles);
    for (size_t k = 1; k < b; ++k) s[k] *= scale;
  }
  return x;
}

}  // namespace dualjit::bench
