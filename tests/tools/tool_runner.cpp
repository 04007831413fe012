#include "tools/tool_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace dualjit::test {
namespace fs = std::filesystem;

TempCacheDir::TempCacheDir() {
  std::string tmpl = (fs::temp_directory_path() / "dualjit-tools-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempCacheDir::~TempCacheDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

ToolResult run_tool(const fs::path& cache_dir, const std::vector<std::string>& args) {
  const fs::path out_file = cache_dir / ".stdout", err_file = cache_dir / ".stderr";
  std::vector<std::string> env_strings = {"DUALJIT_CACHE_DIR=" + cache_dir.string()};
  for (char** e = environ; *e; ++e) {
    if (std::string(*e).rfind("DUALJIT_CACHE_DIR=", 0) != 0) env_strings.push_back(*e);
  }
  std::vector<char*> env;
  for (auto& s : env_strings) env.push_back(s.data());
  env.push_back(nullptr);
  std::vector<std::string> argv_strings = {DUALJIT_CLI};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, DUALJIT_CLI, &fa, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot run " + std::string(DUALJIT_CLI));
  int status = 0;
  waitpid(pid, &status, 0);
  ToolResult r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  };
  r.out = slurp(out_file);
  r.err = slurp(err_file);
  fs::remove(out_file);
  fs::remove(err_file);
  return r;
}

}  // namespace dualjit::test
