#include "tools/commands.h"

#include <cstdio>
#include <exception>
#include <string>

namespace dualjit::tools {

std::string usage() {
  return "usage: dualjit <command> [options]\n"
         "commands:\n"
         "  demo    the main job on the built-in default problem\n"
         "run 'dualjit <command> --help' for a command's options\n";
}

int run_command(int argc, char** argv) {
  const std::string cmd = argv[0];
  try {
    if (cmd == "demo") return demo(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dualjit %s: %s\n", cmd.c_str(), e.what());
    return 1;
  }
  std::fprintf(stderr, "dualjit: unknown command '%s'\n%s", cmd.c_str(), usage().c_str());
  return 2;
}

}  // namespace dualjit::tools
