// The steady Euler demo: subsonic flow over a sphere in a box (a Gmsh mesh, slip wall on the
// sphere, far field outside) or through the channel with a bump (bump_channel.h), solved by
// pseudo-transient continuation (steady_euler.h), with explicit local time stepping of the
// same residual for comparison; writes the solution (.vtu) and the residual histories (PNG).
// `dualjit demo --problem cfd-steady` runs it (tools/steady_demo_command.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "backends/assembly/assembler.h"
#include "examples/cfd/steady_euler.h"

namespace dualjit::cfd {

enum class SteadyGeometry { sphere, bump };

struct SteadyDemoOptions {
  assembly::Backend backend = assembly::Backend::Cpu;  // of the assembly and the solve
  SteadyGeometry geometry = SteadyGeometry::sphere;
  // sphere: the Gmsh refinement (cfd_geometry.h: 1.7 k, 5.4 k, 19 k nodes, ...); bump: the
  // channel has 12 size x 2 x 4 size cells.
  int size = 2;
  // A Gmsh mesh with physical surfaces "wall" (slip) and "farfield" instead of the geometry's
  // own (tools/make_cfd_meshes.sh writes such meshes).
  std::filesystem::path mesh;
  double mach = 0;                   // free stream along x; 0: 0.3 for the sphere, 0.5 for the bump
  int max_iterations = 60;           // nonlinear steps
  int explicit_cap = 3000;           // explicit steps for the comparison (0: none)
  std::filesystem::path output_dir;  // created when missing; empty: the working directory
  // A distributed run (examples/distributed/petsc_steady_demo.h) sets both: the implicit solve
  // in place of solve_steady over one Assembler of `backend` (the explicit comparison, a
  // one-process method, is then skipped), and how a step that one process does for all
  // (meshing, writing the files) runs: on the first rank, the others waiting for it.
  std::function<SteadyResult(const assembly::Problem&, const EdgeMesh&, double gamma,
                             std::vector<double>& q, const SteadyOptions&)>
      implicit_solve;
  std::function<void(const std::function<void()>&)> on_one_rank;
  std::string solver_text;  // the summary's "on the ..." part of such a run
};

struct SteadyDemoReport {
  std::string summary;  // mesh, stream, backend
  int64_t nodes = 0;
  bool gpu = false;  // the assembly ran on the GPU
  SteadyResult implicit, explicit_steps;
  double implicit_seconds = 0, explicit_seconds = 0;
  double entropy_error = 0;  // volume-weighted RMS of s / s_inf - 1
  std::vector<std::filesystem::path> files;
  bool ok = false;  // the implicit solve converged
};

// Throws std::invalid_argument for a size below 1 or a Mach number outside (0, 0.8] (the flow
// stays subsonic), std::runtime_error when the sphere cannot be meshed (no gmsh) or the output
// cannot be written, and MeshReadError for a bad mesh file.
SteadyDemoReport run_steady_demo(const SteadyDemoOptions& options);

}  // namespace dualjit::cfd
