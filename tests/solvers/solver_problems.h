// The problems the solver tests minimise, all on the CPU backend: the implicit-Euler cloth step
// of a small grid with pinned corners (examples/mesh_energy/cloth_energy.h), and a box of stable
// Neo-Hookean tetrahedra under gravity with its bottom face pinned
// (examples/mesh_energy/neo_hookean_problem.h).
#pragma once

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "backends/assembly/assembler.h"
#include "examples/mesh_energy/cloth_energy.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/neo_hookean_problem.h"
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
// nu = 0.3, with gravity pulling along -z on a total mass of `mass` (lumped masses); the
// vertices at z = 0 pinned (mesh_energy::elastic_box). The start is the rest shape stretched by
// 20% along z and perturbed by up to 0.02 (free vertices only).
inline SolverProblem neo_hookean_box(int n, double mass, uint64_t seed) {
  mesh_energy::ElasticBox box;
  box.nx = box.ny = box.nz = n;
  box.lx = box.ly = box.lz = 1;
  box.young = 1e4;
  box.poisson = 0.3;
  box.density = mass;  // over a unit volume
  box.gravity = {0, 0, -9.8};
  box.pinned_faces = {mesh_energy::BoxFace::ZMin};
  mesh_energy::ElasticBody body = mesh_energy::elastic_box(box);
  SolverProblem s(std::move(body.problem));
  s.pinned = body.pinned;
  s.rest = body.mesh.xyz;
  s.start = body.mesh.xyz;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.02, 0.02);
  for (int64_t v = 0; v < body.mesh.n_nodes; ++v) {
    if (s.pinned.is_pinned(v * 3)) continue;
    s.start[v * 3 + 2] *= 1.2;
    for (int c = 0; c < 3; ++c) s.start[v * 3 + c] += u(rng);
  }
  return s;
}

}  // namespace dualjit::test
