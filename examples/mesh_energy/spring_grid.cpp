#include "examples/mesh_energy/spring_grid.h"

#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "examples/mesh_energy/spring_energy.h"

namespace dualjit::mesh_energy {

Kernel inertia_kernel() {
  return Kernel("inertia", [](KernelBuilder& kb) {
    auto x = kb.input_vec<3>("x");
    auto pred = kb.param("predicted", 3);
    auto mass = kb.param("mass", 1);
    Expr inv_h2 = kb.uniform("inv_h2");
    Expr d0 = x[0] - pred[0], d1 = x[1] - pred[1], d2 = x[2] - pred[2];
    kb.output("energy", mass[0] * (0.5 * inv_h2 * (d0 * d0 + d1 * d1 + d2 * d2) + 9.81 * x[2]));
  });
}

SpringGrid spring_grid(int n, uint64_t seed) {
  if (n < 2 || int64_t(n) * n * n > std::numeric_limits<int32_t>::max()) {
    throw std::invalid_argument("spring_grid: n = " + std::to_string(n) +
                                " (at least 2, at most 2^31 - 1 vertices)");
  }
  const int64_t nv = int64_t(n) * n * n;
  const auto id = [n](int i, int j, int k) {
    return static_cast<int32_t>((int64_t(i) * n + j) * n + k);
  };
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(-0.05, 0.05);
  SpringGrid g{assembly::Problem(nv, 3), std::vector<double>(nv * 3), std::vector<double>(nv * 3),
               n};
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) {
        double* p = g.x.data() + int64_t(id(i, j, k)) * 3;
        p[0] = i + jitter(rng), p[1] = j + jitter(rng), p[2] = k + jitter(rng);
      }
    }
  }
  for (double& c : g.v) c = jitter(rng) * 20;

  assembly::Term springs;
  springs.name = "springs";
  springs.kernel = std::make_shared<Kernel>(spring_energy_kernel());
  springs.elements = {"edges", 2, {}};
  springs.energy = true;
  springs.uniforms = {100.0};
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) {
        const int32_t a = id(i, j, k);
        for (int32_t b : {i + 1 < n ? id(i + 1, j, k) : -1, j + 1 < n ? id(i, j + 1, k) : -1,
                          k + 1 < n ? id(i, j, k + 1) : -1}) {
          if (b < 0) continue;
          springs.elements.conn.insert(springs.elements.conn.end(), {a, b});
          springs.params.push_back(1.0);
        }
      }
    }
  }
  g.problem.add_term(std::move(springs));
  assembly::Term inertia;
  inertia.name = "inertia";
  inertia.kernel = std::make_shared<Kernel>(inertia_kernel());
  inertia.elements = {"vertices", 1, {}};
  inertia.energy = true;
  inertia.uniforms = {1e4};
  inertia.elements.conn.resize(nv);
  for (int64_t i = 0; i < nv; ++i) {
    inertia.elements.conn[i] = static_cast<int32_t>(i);
    inertia.params.insert(inertia.params.end(),
                          {g.x[i * 3], g.x[i * 3 + 1], g.x[i * 3 + 2] - 0.01, 1.0});
  }
  g.problem.add_term(std::move(inertia));
  return g;
}

}  // namespace dualjit::mesh_energy
