// `dualjit demo --problem cfd-steady` (examples/cfd/steady_demo.h): the steady Euler solve of
// the channel with a bump, the assembly on the GPU (the CPU with --cpu or without one); prints
// the residual history table, the explicit comparison, the facts and the files it wrote
// (cfd_steady.vtu, cfd_steady_residual.png), then "demo: ok" or "demo: FAILED"; JSON with
// --json. --size N: 12N x 2 x 4N cells (default 4 on a GPU, 2 on the CPU); --max-iterations.
#pragma once

#include "tools/cli_args.h"

namespace dualjit::tools {

inline constexpr const char* kSteadyDemo = "cfd-steady";

std::string steady_demo_description();

// Returns the exit code: 0 when the solve converged. Throws UsageError for options that do not
// apply or bad values.
int steady_demo(const Args& args);

}  // namespace dualjit::tools
