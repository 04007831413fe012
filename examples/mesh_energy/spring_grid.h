// The cloth-step test problem of the energy benchmarks: an n x n x n grid of vertices (jittered
// unit lattice) joined by axis springs (rest length 1, stiffness 100), plus the inertia of an
// implicit Euler step with gravity per vertex (m/(2h^2) |x - x_pred|^2 + m g z). n = 100 gives
// 1 M vertices and 2.97 M springs, the size of the per-element AD paper's cloth example.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/assembly/problem.h"
#include "dsl/kernel.h"

namespace dualjit::mesh_energy {

// Kernel "inertia": input x[3]; params predicted[3], mass; uniform inv_h2.
Kernel inertia_kernel();

struct SpringGrid {
  assembly::Problem problem;  // terms "springs" (edges) and "inertia" (vertices)
  std::vector<double> x;      // a state near rest: n_nodes x 3
  std::vector<double> v;      // a direction for H v: n_nodes x 3
  int n = 0;
};

// Throws std::invalid_argument for n < 2 or more than 2^31 - 1 vertices.
SpringGrid spring_grid(int n, uint64_t seed = 1);

}  // namespace dualjit::mesh_energy
