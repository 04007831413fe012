// What every energy application's demo takes and reports (`dualjit demo --problem NAME` for
// cloth, param, sphere, smooth and neohookean, and the example programs a user copies): it builds
// its mesh, minimises its energy with a solver of solvers/ through an Assembler on the backend
// asked for, writes the result mesh (OBJ) and pictures a person looks at (PNG), and reports the
// convergence history and what it checked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "backends/assembly/assembler.h"
#include "solvers/iteration_log.h"

namespace dualjit::mesh_energy {

struct DemoOptions {
  // Auto: the GPU when one is usable, else the CPU.
  assembly::Backend backend = assembly::Backend::Auto;
  // The demo's size parameter (grid n, subdivision level, rings, boxes per side...); 0: the
  // demo's default for the backend (seconds on the CPU, the paper's scale on a GPU).
  int64_t size = 0;
  std::filesystem::path mesh;        // an input mesh where the demo takes one; empty: built-in
  std::filesystem::path output_dir;  // where files go (created); empty: the working directory
  int max_iterations = 0;            // 0: the demo's default
};

struct DemoReport {
  std::string name;     // "cloth", ...
  std::string backend;  // "cuda" or "cpu"
  std::string summary;  // one line: the mesh, its size, the solver
  solvers::SolveResult solve;
  // Facts the demo measured and checked (name, value as text), e.g. {"flipped triangles", "0"}.
  std::vector<std::pair<std::string, std::string>> facts;
  std::vector<std::filesystem::path> files;  // written, in order
  bool ok = false;                           // converged and every check held
};

}  // namespace dualjit::mesh_energy
