// Scale of the DSL and the reference evaluator on a chemistry-sized graph: building a
// 100,000-node graph, then values + the full Jacobian over 20 inputs, on one core.
// Usage: dsl_scale [nodes] [inputs]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "bench/wall_clock.h"
#include "dsl/reference_evaluator.h"

using namespace dualjit;
using bench::seconds_since;

namespace {

// Arrhenius-like terms over a growing pool, the shape of a large kinetics mechanism.
Kernel build(int n_nodes, int n_inputs) {
  return Kernel("scale", [&](KernelBuilder& kb) {
    std::mt19937_64 rng(42);
    std::vector<Expr> pool = kb.input("y", n_inputs);
    const Expr t = kb.uniform("T");
    std::uniform_real_distribution<double> c(0.1, 2.0);
    Graph* g = pool[0].graph();
    while (g->size() < static_cast<size_t>(n_nodes)) {
      const Expr a = pool[rng() % pool.size()], b = pool[pool.size() - 1 - rng() % 8 % pool.size()];
      Expr r;
      switch (rng() % 4) {
        case 0:
          r = a * b * c(rng);
          break;
        case 1:
          r = a * exp(-c(rng) / (t + a * a));
          break;
        case 2:
          r = a - b * c(rng);
          break;
        default:
          r = tanh(a + b);
          break;
      }
      pool.push_back(r);
    }
    std::vector<Expr> out(pool.end() - 4, pool.end());
    kb.output("w", out);
  });
}

}  // namespace

int main(int argc, char** argv) {
  const int n_nodes = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int n_inputs = argc > 2 ? std::atoi(argv[2]) : 20;
  auto t0 = std::chrono::steady_clock::now();
  const Kernel k = build(n_nodes, n_inputs);
  const double t_build = seconds_since(t0);

  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0.1, 1.0);
  std::vector<double> y(n_inputs);
  for (double& v : y) v = u(rng);
  const std::vector<double> uniforms = {1.5};
  t0 = std::chrono::steady_clock::now();
  const auto vals = evaluate_values(k, {y, {}, uniforms});
  const double t_values = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  const auto jac = evaluate_jacobian(k, {y, {}, uniforms}, n_inputs);
  const double t_jac = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  const auto jac5 = evaluate_jacobian(k, {y, {}, uniforms}, 5);
  const double t_jac5 = seconds_since(t0);

  std::printf("nodes %zu, inputs %d, outputs %d\n", k.graph().size(), n_inputs, k.n_outputs());
  std::printf("build graph            %8.3f s  (target < 0.5 s)\n", t_build);
  std::printf("values                 %8.3f s\n", t_values);
  std::printf("values + Jacobian W=%-2d %8.3f s  (target < 1 s)\n", n_inputs, t_jac);
  std::printf("values + Jacobian W=5  %8.3f s\n", t_jac5);
  std::printf("check: f0 %.6e  J00 %.6e  (W=5 equal: %s)\n", vals[0], jac.jacobian[0],
              jac.jacobian == jac5.jacobian ? "yes" : "NO");
  return jac.jacobian == jac5.jacobian ? 0 : 1;
}
