// Where the energy demos find the real meshes that tools/fetch-meshes.sh puts in a cache folder
// (mannequin-devil, bunny00, armadillo from Debian's libcgal-demo), so that a demo uses one when
// it is there and its built-in mesh otherwise; nothing is downloaded here.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace dualjit::mesh_energy {

// $DUALJIT_MESH_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/dualjit/meshes: the script's folder.
std::filesystem::path mesh_directory();

// <mesh_directory()>/<name>.off when it exists and is not empty; nullopt otherwise.
std::optional<std::filesystem::path> find_real_mesh(std::string_view name);

}  // namespace dualjit::mesh_energy
