// Random kernels for property tests: the same seed gives the same function whatever the
// graph options, so simplified and unsimplified graphs can be compared. Values stay in
// ranges where every op is defined (logs of positives, divisions away from zero).
#pragma once

#include <random>
#include <string>
#include <vector>

#include "dsl/kernel.h"

namespace dualjit::test {

struct RandomKernelOptions {
  int n_inputs = 4;
  int n_params = 2;
  int n_uniforms = 1;
  int n_nodes = 40;
  int n_outputs = 2;
  bool smooth_only = true;  // false adds abs, min, max, select, comparisons
  uint64_t seed = 1;
  GraphOptions graph;
};

inline Kernel random_kernel(const RandomKernelOptions& o, const std::string& name = "random") {
  return Kernel(
      name,
      [&](KernelBuilder& kb) {
        std::mt19937_64 rng(o.seed);
        std::uniform_real_distribution<double> unit(-1.0, 1.0);
        std::vector<Expr> pool = kb.input("x", o.n_inputs);
        if (o.n_params > 0) {
          for (const Expr& p : kb.param("p", o.n_params)) pool.push_back(p);
        }
        for (int u = 0; u < o.n_uniforms; ++u) pool.push_back(kb.uniform("u" + std::to_string(u)));
        auto pick = [&]() -> Expr {
          // Favour recent nodes so that the graph gets deep, not just wide.
          std::uniform_int_distribution<size_t> any(0, pool.size() - 1);
          std::uniform_int_distribution<size_t> recent(pool.size() > 6 ? pool.size() - 6 : 0,
                                                       pool.size() - 1);
          return (rng() % 2) ? pool[recent(rng)] : pool[any(rng)];
        };
        const int n_kinds = o.smooth_only ? 19 : 25;
        for (int i = 0; i < o.n_nodes; ++i) {
          const Expr a = pick(), b = pick();
          const double c = 0.5 + 0.5 * std::abs(unit(rng));
          Expr r;
          switch (static_cast<int>(rng() % n_kinds)) {
            case 0:
              r = a + b;
              break;
            case 1:
              r = a - b;
              break;
            case 2:
              r = a * b;
              break;
            case 3:
              r = a / (b * b + c);
              break;
            case 4:
              r = sqrt(a * a + c);
              break;
            case 5:
              r = log(a * a + c);
              break;
            case 6:
              r = exp(-(a * a));
              break;
            case 7:
              r = sin(a);
              break;
            case 8:
              r = cos(b);
              break;
            case 9:
              r = tanh(a * b);
              break;
            case 10:
              r = atan(a);
              break;
            case 11:
              r = atan2(a, b * b + c);
              break;
            case 12:
              r = cbrt(a + 3.0);
              break;
            case 13:
              r = pow(a * a + c, b);
              break;
            case 14:
              r = pow(a, 3.0) - 2.0 * a;
              break;
            case 15:
              r = sinh(0.5 * a) + cosh(0.5 * b);
              break;
            case 16:
              r = tan(0.5 * tanh(a));
              break;
            case 17:
              r = log10(b * b + c) * a;
              break;
            case 18:
              r = a * c + unit(rng);
              break;
            case 19:
              r = abs(a - b);
              break;
            case 20:
              r = min(a, b);
              break;
            case 21:
              r = max(a, b * c);
              break;
            case 22:
              r = select(a < b, a * b, a + b);
              break;
            case 23:
              r = sign(a) * b;
              break;
            default:
              r = select(a >= c, sin(b), cos(a));
              break;
          }
          // Keep magnitudes moderate so that no intermediate overflows.
          if (i % 5 == 4) r = 2.0 * tanh(0.5 * r);
          pool.push_back(r);
        }
        std::vector<Expr> outs;
        for (int k = 0; k < o.n_outputs; ++k) outs.push_back(pool[pool.size() - 1 - k] + pick());
        kb.output("f", outs);
      },
      o.graph);
}

inline std::vector<double> random_vector(size_t n, std::mt19937_64& rng, double lo = -1.0,
                                         double hi = 1.0) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

}  // namespace dualjit::test
