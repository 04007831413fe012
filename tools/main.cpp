// The dualjit command.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tools/commands.h"

int main(int argc, char** argv) {
  // Global options before the command: --plugin LIB.so (kept for run_command to load).
  std::vector<char*> plugins;
  int i = 1;
  while (i + 1 < argc && std::strcmp(argv[i], "--plugin") == 0) {
    plugins.push_back(argv[i]);
    plugins.push_back(argv[i + 1]);
    i += 2;
  }
  if (i >= argc || std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
    std::fputs(dualjit::tools::usage().c_str(), i >= argc ? stderr : stdout);
    return i >= argc ? 2 : 0;
  }
  std::vector<char*> args(argv + i, argv + argc);
  args.insert(args.end(), plugins.begin(), plugins.end());
  return dualjit::tools::run_command(static_cast<int>(args.size()), args.data());
}
