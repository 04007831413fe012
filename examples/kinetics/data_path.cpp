#include "examples/kinetics/data_path.h"

#include <cstdlib>

#include "examples/kinetics/mechanism_error.h"

namespace dualjit::kinetics {

std::vector<std::filesystem::path> mechanism_search_path() {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("DUALJIT_DATA_PATH")) {
    std::string list = env;
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      if (end > start) dirs.emplace_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  dirs.emplace_back(DUALJIT_KINETICS_DATA_DIR);
  return dirs;
}

std::filesystem::path find_mechanism_file(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path path(name);
  if (fs::is_regular_file(path)) return path;
  std::string tried = fs::absolute(path).string();
  // A path with folders or an absolute one means that file only; a bare name is searched.
  if (path.is_relative() && !path.has_parent_path()) {
    for (const auto& dir : mechanism_search_path()) {
      if (fs::is_regular_file(dir / path)) return dir / path;
      tried += ", " + (dir / path).string();
    }
  }
  throw MechanismError(name + ": mechanism file not found (tried " + tried + ")");
}

}  // namespace dualjit::kinetics
