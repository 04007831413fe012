// Runs the built dualjit executable with its own cache directory and captures its output.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace dualjit::test {

struct ToolResult {
  int rc = -1;
  std::string out, err;
};

// A fresh, empty cache directory, removed when the object goes.
class TempCacheDir {
 public:
  TempCacheDir();
  ~TempCacheDir();
  TempCacheDir(const TempCacheDir&) = delete;
  TempCacheDir& operator=(const TempCacheDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// `dualjit args...` with DUALJIT_CACHE_DIR=cache_dir.
ToolResult run_tool(const std::filesystem::path& cache_dir, const std::vector<std::string>& args);

}  // namespace dualjit::test
