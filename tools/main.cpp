// The dualjit command.
#include <cstdio>
#include <cstring>
#include <string>

#include "tools/commands.h"

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(dualjit::tools::usage().c_str(), argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  return dualjit::tools::run_command(argc - 1, argv + 1);
}
