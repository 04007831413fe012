// What a steady Euler solve writes for a person to look at: the solution as a VTK unstructured
// grid (.vtu, ASCII XML; ParaView opens it) with density, velocity, pressure and Mach number at
// the nodes, and the residual history as a plot (PNG).
#pragma once

#include <filesystem>
#include <span>

#include "examples/cfd/steady_euler.h"
#include "examples/cfd/tet_mesh.h"

namespace dualjit::cfd {

// Throws std::invalid_argument for a state that is not n_nodes x 5, std::runtime_error naming
// the file when it cannot be written.
void write_vtu(const std::filesystem::path& file, const TetMesh& mesh, std::span<const double> q,
               double gamma);

// |R| / |R0| against the step on a log axis, for each history given (label, result): the
// implicit solve and, where run, explicit stepping of the same residual.
struct LabelledHistory {
  std::string label;
  const SteadyResult* result;
};
void write_residual_plot(const std::filesystem::path& file,
                         const std::vector<LabelledHistory>& histories, const std::string& title);

}  // namespace dualjit::cfd
