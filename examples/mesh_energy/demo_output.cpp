#include "examples/mesh_energy/demo_output.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <system_error>

namespace dualjit::mesh_energy {

std::filesystem::path demo_output_dir(const DemoOptions& options) {
  if (options.output_dir.empty()) return std::filesystem::current_path();
  std::error_code ec;
  std::filesystem::create_directories(options.output_dir, ec);
  if (ec || !std::filesystem::is_directory(options.output_dir)) {
    throw std::runtime_error("demo: cannot create the output directory " +
                             options.output_dir.string() + (ec ? ": " + ec.message() : ""));
  }
  return options.output_dir;
}

assembly::Backend demo_backend(const DemoOptions& options) {
  return assembly::resolve_backend(options.backend);
}

std::string demo_backend_name(assembly::Backend backend) {
  return backend == assembly::Backend::Cuda ? "cuda" : "cpu";
}

std::string number_text(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

std::string fact_number(double value) {
  char text[64];
  const double a = std::abs(value);
  std::snprintf(text, sizeof text, a != 0 && (a < 1e-3 || a >= 1e6) ? "%.3e" : "%.4g", value);
  return text;
}

}  // namespace dualjit::mesh_energy
