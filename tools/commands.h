// Sub-commands of the dualjit tool; each returns the process exit code.
#pragma once

#include <string>

namespace dualjit::tools {

std::string usage();
// argv[0] is the sub-command name.
int run_command(int argc, char** argv);
int demo(int argc, char** argv);

}  // namespace dualjit::tools
