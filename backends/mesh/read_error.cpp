#include "backends/mesh/read_error.h"

namespace dualjit::mesh {
namespace {

std::string located(const std::filesystem::path& file, int64_t line, const std::string& message) {
  // Appended piecewise: "a" + std::to_string(n) trips a false -Wrestrict in GCC 12 at -O3.
  std::string out = file.string();
  if (line > 0) out.append(":").append(std::to_string(line));
  out.append(": ").append(message);
  return out;
}

}  // namespace

MeshReadError::MeshReadError(std::filesystem::path file, int64_t line, const std::string& message)
    : std::runtime_error(located(file, line, message)), file_(std::move(file)), line_(line) {}

}  // namespace dualjit::mesh
