// `dualjit demo --problem ignition` (examples/kinetics/ignition_demo.h): an ignition-delay
// sweep over initial temperatures, or with --T0 one case, on the GPU (the CPU with --cpu or
// without one); prints the table (Cantera's delays beside it where Python has Cantera), the
// timing, the facts it checked, the files it wrote (ignition.csv, ignition.png) and "demo: ok"
// or "demo: FAILED"; JSON with --json. Built with the kinetics (yaml-cpp);
// ignition_demo_command_absent.cpp stands in without it.
#pragma once

#include <string>

#include "tools/cli_args.h"

namespace dualjit::tools {

inline constexpr const char* kIgnitionDemo = "ignition";

// Whether this build has the demo (the kinetics needs yaml-cpp).
bool ignition_demo_available();
// One line for `dualjit list`.
std::string ignition_demo_description();
// Declares the demo's own options (--T0, --pressure, --composition, --t-end, --t-range,
// --no-cantera) on the demo command; --mechanism is the kinetics problem's option, --output the
// applications'. Nothing without the kinetics.
void add_ignition_options(Args& args);
// Throws UsageError when `args` holds one of the demo's own options (for the other problems).
void refuse_ignition_options(const Args& args, const std::string& problem);

// `args` as the demo command parsed them. Returns the exit code: 0 when the demo's checks held,
// 1 when not. Throws UsageError for options that do not apply or bad values.
int ignition_demo(const Args& args);

}  // namespace dualjit::tools
