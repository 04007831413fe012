#include "tools/commands.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "tools/cli_args.h"
#include "tools/problems/builtin_problems.h"

namespace dualjit::tools {

std::string usage() {
  return "usage: dualjit [--plugin LIB.so]... <command> [options]\n"
         "commands:\n"
         "  demo      the main job on the built-in default problem (cfd-roe), checked;\n"
         "            --problem cloth|param|sphere|smooth|neohookean: an energy application\n"
         "  list      registered problems, their modes, sizes and options; the energy\n"
         "            applications\n"
         "  info      GPUs, NVRTC and driver versions, the cache and the tuning records\n"
         "  emit      print a problem's generated source and operation counts\n"
         "  autotune  time the candidate configurations and record the fastest\n"
         "  cache     warm | list | clear | prune the kernel cache\n"
         "  bench     the tuned configuration against the heuristic default\n"
         "a problem may take options of its own in demo, emit, autotune, bench and cache warm\n"
         "(kinetics: --mechanism FILE[:PHASE]); 'dualjit list' shows them\n"
         "run 'dualjit <command> --help' for a command's options\n";
}

int run_command(int argc, char** argv) {
  const std::string cmd = argc > 0 ? argv[0] : "";
  try {
    register_builtin_problems();
    // --plugin may come anywhere; plugins register before the command looks anything up.
    for (int i = 1; i < argc; ++i) {
      if (std::strcmp(argv[i], "--plugin") == 0 && i + 1 < argc) {
        load_plugin(argv[i + 1]);
      } else if (std::strncmp(argv[i], "--plugin=", 9) == 0) {
        load_plugin(argv[i] + 9);
      }
    }
    if (cmd == "demo") return demo(argc, argv);
    if (cmd == "list") return list(argc, argv);
    if (cmd == "info") return info(argc, argv);
    if (cmd == "emit") return emit(argc, argv);
    if (cmd == "autotune") return autotune(argc, argv);
    if (cmd == "cache") return cache(argc, argv);
    if (cmd == "bench") return bench(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "dualjit %s: %s\nrun 'dualjit %s --help' for the options\n", cmd.c_str(),
                 e.what(), cmd.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dualjit %s: %s\n", cmd.c_str(), e.what());
    return 1;
  }
  std::fprintf(stderr, "dualjit: unknown command '%s'\n%s", cmd.c_str(), usage().c_str());
  return 2;
}

}  // namespace dualjit::tools
