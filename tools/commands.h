// Sub-commands of the dualjit tool; each returns the process exit code: 0 success, 1 a
// runtime failure (or a failed check), 2 a usage error.
#pragma once

#include <string>

namespace dualjit::tools {

std::string usage();
// argv[0] is the sub-command name. Loads --plugin libraries, registers the built-in
// problems, dispatches, and maps exceptions to exit codes.
int run_command(int argc, char** argv);

int demo(int argc, char** argv);
int list(int argc, char** argv);
int info(int argc, char** argv);
int emit(int argc, char** argv);
int autotune(int argc, char** argv);
int cache(int argc, char** argv);
int bench(int argc, char** argv);

}  // namespace dualjit::tools
