// The CFD example's Gmsh geometry (examples/cfd/geometry: a sphere in a box, the channel with a
// bump) meshed on demand by the project's script, tools/make_cfd_meshes.sh, with the gmsh it
// finds ($GMSH or PATH); it installs nothing.
#pragma once

#include <filesystem>
#include <string>

namespace dualjit::cfd {

// The file mesh_cfd_geometry writes: `dir`/NAME_REFINEMENT.msh.
std::filesystem::path cfd_geometry_path(const std::string& name, int refinement,
                                        const std::filesystem::path& dir);

// Writes `dir`/NAME_REFINEMENT.msh (name "sphere" or "bump", refinement 1, 2, ...: about 3.3
// times the nodes each; sphere 1.7 k, 5.4 k, 19 k, ...) and returns its path. Throws
// std::invalid_argument for another name or a refinement below 1, and std::runtime_error with
// the script's output and how to install gmsh when it fails.
std::filesystem::path mesh_cfd_geometry(const std::string& name, int refinement,
                                        const std::filesystem::path& dir);

}  // namespace dualjit::cfd
