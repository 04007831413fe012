#include "examples/mesh_energy/demo_meshes.h"

#include <cstdlib>
#include <string>
#include <system_error>

namespace dualjit::mesh_energy {

std::filesystem::path mesh_directory() {
  const auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (const std::string dir = env("DUALJIT_MESH_DIR"); !dir.empty()) return dir;
  std::filesystem::path cache = env("XDG_CACHE_HOME");
  if (cache.empty()) cache = std::filesystem::path(env("HOME")) / ".cache";
  return cache / "dualjit" / "meshes";
}

std::optional<std::filesystem::path> find_real_mesh(std::string_view name) {
  const std::filesystem::path file = mesh_directory() / (std::string(name) + ".off");
  std::error_code ec;  // an unreadable folder is the same as a missing mesh: use the built-in
  if (std::filesystem::is_regular_file(file, ec) && std::filesystem::file_size(file, ec) > 0 && !ec)
    return file;
  return std::nullopt;
}

}  // namespace dualjit::mesh_energy
