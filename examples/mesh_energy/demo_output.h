// What the energy demos (demo.h) share about their output: where files go, how numbers read in
// the facts, and the convergence plot drawn from a solver's records.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "examples/mesh_energy/demo.h"
#include "solvers/iteration_log.h"

namespace dualjit::mesh_energy {

// options.output_dir, created when missing; the working directory when empty. Throws
// std::runtime_error naming the directory when it cannot be created.
std::filesystem::path demo_output_dir(const DemoOptions& options);

// The backend the options ask for, resolved (Auto: the GPU when usable), and its report name.
assembly::Backend demo_backend(const DemoOptions& options);
std::string demo_backend_name(assembly::Backend backend);  // "cuda" or "cpu"

// A number for a fact: %.4g, or %.3e for the very large or small.
std::string fact_number(double value);

// One curve of a convergence plot: the gradient norm at each record of `solve`, scaled by
// `scale` (e.g. to a force), against first_iteration + the record's index.
struct ConvergenceCurve {
  std::string label;
  const solvers::SolveResult* solve = nullptr;
  double scale = 1.0;
  int first_iteration = 0;
};
// Writes a PNG line plot of the curves with a logarithmic y axis. Throws std::runtime_error
// naming the file when it cannot be written.
void write_convergence_plot(const std::filesystem::path& file, const std::string& title,
                            const std::string& y_label,
                            const std::vector<ConvergenceCurve>& curves);

}  // namespace dualjit::mesh_energy
