// The problems the solver tests minimise, all on the CPU backend: the implicit-Euler cloth step
// of a small grid with pinned corners (examples/mesh_energy/cloth_energy.h), and a box of stable
// Neo-Hookean tetrahedra under gravity with its bottom face pinned.
#pragma once

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "backends/assembly/assembler.h"
#include "examples/cfd/tet_mesh.h"
#include "examples/mesh_energy/cloth_energy.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/neo_hookean.h"
#include "solvers/objective.h"
#include "solvers/pinned.h"
#include "support/assembly.h"

namespace dualjit::test {

// A problem, its CPU assembler and objective, pinned DOFs and a start point.
struct SolverProblem {
  std::unique_ptr<assembly::Problem> problem;
  std::unique_ptr<assembly::Assembler> assembler;
  std::unique_ptr<solvers::AssemblerObjective> objective;
  solvers::PinnedDofs pinned;
  std::vector<double> rest, start;

  explicit SolverProblem(assembly::Problem p)
      : problem(std::make_unique<assembly::Problem>(std::move(p))),
        assembler(std::make_unique<assembly::Assembler>(*problem, on_cpu())),
        objective(std::make_unique<solvers::AssemblerObjective>(*assembler)),
        pinned(problem->n_nodes(), problem->block_size()) {}
};

// An n x n cloth grid hanging from its four corners, predicted at rest (xhat = rest), softer
// than the benchmark's step (k = 2e3) so that it sags visibly under gravity. The start is the
// rest shape with the free vertices moved by up to `perturbation`: springs both compressed and
// stretched, so early Hessians can be indefinite.
inline SolverProblem cloth(int n, double perturbation, uint64_t seed) {
  const mesh_energy::ClothGrid g = mesh_energy::cloth_grid(n);
  mesh_energy::ClothStep step;
  step.k = 2e3;
  step.h = 0.02;
  SolverProblem s(mesh_energy::cloth_problem(g, g.mesh.x, step));
  for (int v : {0, n - 1, n * (n - 1), n * n - 1}) s.pinned.pin_node(v);
  s.rest = g.mesh.x;
  s.start = g.mesh.x;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-perturbation, perturbation);
  for (size_t i = 0; i < s.start.size(); ++i) {
    if (!s.pinned.is_pinned(static_cast<int64_t>(i))) s.start[i] += u(rng);
  }
  return s;
}

// The cloth at `scale` times its rest size (in x and z): every spring stretched (scale > 1,
// a positive definite Hessian) or compressed (scale < 1, an indefinite one).
inline std::vector<double> scaled_cloth(const SolverProblem& s, double scale) {
  std::vector<double> x = s.rest;
  for (double& c : x) c *= scale;
  return x;
}

// A stable Neo-Hookean box [0,1] x [0,1] x [0,1] of n^3 cells (6 tets each), E = 1e4,
// nu = 0.3, with gravity pulling along -z on a total mass of `mass` spread evenly over the
// vertices; the vertices at z = 0 pinned. The start is the rest shape stretched by 20% along z
// and perturbed by up to 0.02 (free vertices only).
inline SolverProblem neo_hookean_box(int n, double mass, uint64_t seed) {
  const cfd::TetMesh m = cfd::box_tet_mesh(n, n, n);
  const mesh_energy::Lame lame = mesh_energy::lame_parameters(1e4, 0.3);
  assembly::Problem p(m.n_nodes, 3);
  assembly::Term elastic;
  elastic.name = "elastic";
  elastic.kernel = std::make_shared<Kernel>(mesh_energy::stable_neo_hookean_kernel());
  elastic.elements = {"tets", 4, m.tets};
  elastic.energy = true;
  elastic.params = mesh_energy::neo_hookean_params(m.xyz, m.tets);
  elastic.uniforms = {lame.mu, lame.lambda};
  p.add_term(std::move(elastic));
  assembly::Term gravity;
  gravity.name = "gravity";
  gravity.kernel = std::make_shared<Kernel>("gravity", [](KernelBuilder& kb) {
    const Vec<3> x = kb.input_vec<3>("x");
    const Expr mg = kb.uniform("mg");
    kb.output("energy", mg * x[2]);
  });
  gravity.elements = {"vertices", 1, {}};
  for (int32_t v = 0; v < m.n_nodes; ++v) gravity.elements.conn.push_back(v);
  gravity.energy = true;
  gravity.uniforms = {9.8 * mass / static_cast<double>(m.n_nodes)};
  p.add_term(std::move(gravity));

  SolverProblem s(std::move(p));
  for (int64_t v = 0; v < m.n_nodes; ++v) {
    if (m.xyz[v * 3 + 2] == 0) s.pinned.pin_node(v);
  }
  s.rest = m.xyz;
  s.start = m.xyz;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.02, 0.02);
  for (int64_t v = 0; v < m.n_nodes; ++v) {
    if (s.pinned.is_pinned(v * 3)) continue;
    s.start[v * 3 + 2] *= 1.2;
    for (int c = 0; c < 3; ++c) s.start[v * 3 + c] += u(rng);
  }
  return s;
}

}  // namespace dualjit::test
