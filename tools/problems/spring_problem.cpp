// The mass-spring network: per spring, 0.5 k L (|xa - xb| / L - 1)^2 over random node pairs.
#include <algorithm>
#include <random>

#include "examples/mesh_energy/spring_energy.h"
#include "tools/problems/builtin_problems.h"
#include "tools/registry/element_problem.h"

namespace dualjit::tools {
namespace {

std::unique_ptr<ProblemInstance> build_springs(int64_t n_springs) {
  n_springs = std::max<int64_t>(n_springs, 1);
  ElementProblemData d;
  d.n_nodes = std::max<int64_t>(2, n_springs / 3);
  d.field_width = 3;
  d.vertices = 2;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> pos(-1.0, 1.0), len(0.5, 1.5);
  std::uniform_int_distribution<int64_t> node(0, d.n_nodes - 1);
  d.field.resize(d.n_nodes * 3);
  for (double& v : d.field) v = pos(rng);
  d.conn.resize(n_springs * 2);
  d.params.resize(n_springs);
  for (int64_t e = 0; e < n_springs; ++e) {
    d.conn[2 * e] = static_cast<int32_t>(node(rng));
    do d.conn[2 * e + 1] = static_cast<int32_t>(node(rng));
    while (d.conn[2 * e + 1] == d.conn[2 * e]);
    d.params[e] = len(rng);
  }
  d.uniforms = {100.0};
  d.summary = "random spring network: " + std::to_string(d.n_nodes) + " nodes, " +
              std::to_string(n_springs) + " springs";
  return make_element_problem(std::make_shared<Kernel>(mesh_energy::spring_energy_kernel()),
                              std::move(d));
}

}  // namespace

ProblemRecipe spring_recipe() {
  ProblemRecipe r;
  r.name = "spring";
  r.description = "mass-spring energy: per-spring value, gradient and Hessian";
  r.size_unit = "springs";
  r.modes = {Mode::Hessian, Mode::Gradient, Mode::Value, Mode::Hvp};
  r.cpu_size = 100000;
  r.gpu_size = 1000000;
  r.small_size = 64;
  r.build = build_springs;
  return r;
}

}  // namespace dualjit::tools
