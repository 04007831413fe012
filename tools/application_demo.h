// `dualjit demo --problem NAME` for an energy application (applications.h): runs its demo on the
// GPU (the CPU with --cpu or without one) and prints the summary, the convergence table, the
// facts it checked, the files it wrote and "demo: ok" or "demo: FAILED"; JSON with --json.
#pragma once

#include "tools/applications.h"
#include "tools/cli_args.h"

namespace dualjit::tools {

// The options the demo command declares for applications (--mesh, --output, --max-iterations).
void add_application_options(Args& args);
// Throws UsageError when `args` holds an application option (for the kernel problems).
void refuse_application_options(const Args& args, const std::string& problem);

// `args` as the demo command parsed them. Returns the exit code: 0 when the demo's checks held,
// 1 when not. Throws UsageError for options that do not apply to the application.
int application_demo(const Application& app, const Args& args);

}  // namespace dualjit::tools
