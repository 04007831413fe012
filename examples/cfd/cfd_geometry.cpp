#include "examples/cfd/cfd_geometry.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dualjit::cfd {

std::filesystem::path mesh_cfd_geometry(const std::string& name, int refinement,
                                        const std::filesystem::path& dir) {
  if (name != "sphere" && name != "bump")
    throw std::invalid_argument("mesh_cfd_geometry: geometry '" + name + "' (sphere or bump)");
  if (refinement < 1)
    throw std::invalid_argument("mesh_cfd_geometry: refinement " + std::to_string(refinement));
  std::filesystem::create_directories(dir);
  const std::string script = std::string(DUALJIT_PROJECT_DIR) + "/tools/make_cfd_meshes.sh";
  const std::filesystem::path log = dir / ("make_cfd_meshes_" + name + ".log");
  const std::string command = "'" + script + "' --no-install --only " + name + " '" + dir.string() +
                              "' " + std::to_string(refinement) + " > '" + log.string() + "' 2>&1";
  if (std::system(command.c_str()) != 0) {
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    throw std::runtime_error(script + " failed:\n" + text.str() +
                             "The sphere is meshed by gmsh: apt-get install "
                             "--no-install-recommends gmsh (or tools/install-test-deps.sh "
                             "BUILD_DIR), or set GMSH to a gmsh executable.");
  }
  return cfd_geometry_path(name, refinement, dir);
}

std::filesystem::path cfd_geometry_path(const std::string& name, int refinement,
                                        const std::filesystem::path& dir) {
  return dir / (name + "_" + std::to_string(refinement) + ".msh");
}

}  // namespace dualjit::cfd
