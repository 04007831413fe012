// A malformed or unreadable mesh file, for every mesh reader (Gmsh tetrahedra, OFF and OBJ
// triangle meshes). what() reads "file:line: message" (or "file: message" when no line applies,
// e.g. a missing file); line() is 1-based, 0 when no line applies.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace dualjit::mesh {

class MeshReadError : public std::runtime_error {
 public:
  MeshReadError(std::filesystem::path file, int64_t line, const std::string& message);
  const std::filesystem::path& file() const { return file_; }
  int64_t line() const { return line_; }

 private:
  std::filesystem::path file_;
  int64_t line_;
};

}  // namespace dualjit::mesh
