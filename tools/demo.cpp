// `dualjit demo`: define a kernel in the DSL and take its derivatives on a batch of
// elements, checking them against central differences.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "dsl/reference_evaluator.h"
#include "tools/commands.h"

namespace dualjit::tools {
namespace {

// A mass-spring edge energy, the smallest mesh energy with a non-trivial Hessian.
Kernel spring_kernel() {
  return Kernel("spring_energy", [](KernelBuilder& kb) {
    auto xa = kb.input_vec<3>("xa");
    auto xb = kb.input_vec<3>("xb");
    auto rest = kb.param("rest_length", 1);
    Expr k = kb.uniform("stiffness");
    Expr stretch = norm(xa - xb) / rest[0] - 1.0;
    kb.output("energy", 0.5 * k * rest[0] * stretch * stretch);
  });
}

}  // namespace

int demo(int argc, char** argv) {
  int n_elements = 1000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help") {
      std::printf("usage: dualjit demo [--elements N]\n");
      return 0;
    } else if (a == "--elements" && i + 1 < argc) {
      n_elements = std::stoi(argv[++i]);
    } else {
      std::fprintf(stderr, "dualjit demo: unknown option '%s'\n", a.c_str());
      return 2;
    }
  }
  const Kernel k = spring_kernel();
  std::printf("kernel %s: %d active inputs, %zu graph nodes, hash %.16s\n", k.name().c_str(),
              k.n_inputs(), k.graph().size(), k.hash().c_str());

  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> pos(-1.0, 1.0), len(0.5, 1.5);
  ElementBatch batch;
  batch.n_elements = n_elements;
  for (int e = 0; e < n_elements; ++e) {
    for (int c = 0; c < 6; ++c) batch.inputs.push_back(pos(rng));
    batch.params.push_back(len(rng));
  }
  batch.uniforms = {100.0};
  const auto t0 = std::chrono::steady_clock::now();
  const BatchResult r = evaluate_batch(k, Mode::Hessian, batch);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  // Check every gradient against central differences of the energy.
  double worst = 0;
  const double h = 1e-6;
  for (int e = 0; e < n_elements; ++e) {
    std::vector<double> x(batch.inputs.begin() + e * 6, batch.inputs.begin() + e * 6 + 6);
    const std::vector<double> p = {batch.params[e]};
    for (int i = 0; i < 6; ++i) {
      auto xp = x, xm = x;
      xp[i] += h;
      xm[i] -= h;
      const double fd = (evaluate_values(k, {xp, p, batch.uniforms})[0] -
                         evaluate_values(k, {xm, p, batch.uniforms})[0]) /
                        (2 * h);
      worst = std::max(worst, std::abs(fd - r.first[e * 6 + i]) / std::max(1.0, std::abs(fd)));
    }
  }
  std::printf("energy, gradient and Hessian of %d elements on the reference evaluator: %.1f ms\n",
              n_elements, ms);
  std::printf("gradient vs central differences: worst relative error %.2e\n", worst);
  return worst < 1e-6 ? 0 : 1;
}

}  // namespace dualjit::tools
