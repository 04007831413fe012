// A problem plugin, as a user would write one: a shared library whose static initialiser
// registers a problem. Loaded by the tests with `dualjit --plugin <this library>`.
#include <cmath>

#include "tools/registry/element_problem.h"

namespace {

using namespace dualjit;

// A per-edge quartic energy over a chain of 2D points.
std::unique_ptr<tools::ProblemInstance> build_chain(int64_t n_edges) {
  auto kernel = std::make_shared<Kernel>("plugin_quartic", [](KernelBuilder& kb) {
    auto a = kb.input_vec<2>("a");
    auto b = kb.input_vec<2>("b");
    Expr c = kb.uniform("c");
    Expr d2 = dot(a - b, a - b);
    kb.output("energy", c * d2 * d2 + sin(a[0] * b[1]));
  });
  tools::ElementProblemData d;
  d.n_nodes = n_edges + 1;
  d.field_width = 2;
  d.vertices = 2;
  for (int64_t i = 0; i <= n_edges; ++i) {
    d.field.push_back(std::cos(0.1 * i));
    d.field.push_back(std::sin(0.3 * i));
  }
  for (int64_t e = 0; e < n_edges; ++e) {
    d.conn.push_back(static_cast<int32_t>(e));
    d.conn.push_back(static_cast<int32_t>(e + 1));
  }
  d.uniforms = {0.5};
  d.summary = "chain of " + std::to_string(n_edges) + " edges";
  return tools::make_element_problem(kernel, std::move(d));
}

tools::ProblemRecipe chain_recipe() {
  tools::ProblemRecipe r;
  r.name = "plugin-quartic";
  r.description = "a plugin's quartic chain energy";
  r.size_unit = "edges";
  r.modes = {Mode::Gradient, Mode::Hessian};
  r.cpu_size = 1000;
  r.gpu_size = 100000;
  r.small_size = 4;
  r.build = build_chain;
  return r;
}

}  // namespace

DUALJIT_REGISTER_PROBLEM(plugin_quartic, chain_recipe());
