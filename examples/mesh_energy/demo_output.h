// What the energy demos (demo.h) share about their output: where files go, how numbers read in
// the facts (the convergence plot is solve_plot.h).
#pragma once

#include <filesystem>
#include <string>

#include "examples/mesh_energy/demo.h"

namespace dualjit::mesh_energy {

// options.output_dir, created when missing; the working directory when empty. Throws
// std::runtime_error naming the directory when it cannot be created.
std::filesystem::path demo_output_dir(const DemoOptions& options);

// The backend the options ask for, resolved (Auto: the GPU when usable), and its report name.
assembly::Backend demo_backend(const DemoOptions& options);
std::string demo_backend_name(assembly::Backend backend);  // "cuda" or "cpu"

// A number for a fact: %.4g, or %.3e for the very large or small.
std::string fact_number(double value);
// A number with `digits` significant digits (%.*g).
std::string number_text(double value, int digits = 6);

}  // namespace dualjit::mesh_energy
