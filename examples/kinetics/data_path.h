// Where a mechanism named by a bare file name is found, as Cantera finds it: the working
// directory, then each folder of DUALJIT_DATA_PATH (colon-separated), then the project's
// data/mechanisms folder.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace dualjit::kinetics {

// The folders searched after the working directory, in order.
std::vector<std::filesystem::path> mechanism_search_path();

// The file `name` names; throws MechanismError listing the folders tried when there is none.
std::filesystem::path find_mechanism_file(const std::string& name);

}  // namespace dualjit::kinetics
