// Without yaml-cpp the kinetics (and so the ignition demo, ignition_demo_command.cpp) is not
// built: the demo's name is a usage error that says why.
#include "tools/ignition_demo_command.h"

namespace dualjit::tools {

bool ignition_demo_available() {
  return false;
}

std::string ignition_demo_description() {
  return {};
}

void add_ignition_options(Args&) {}

void refuse_ignition_options(const Args&, const std::string&) {}

int ignition_demo(const Args&) {
  throw UsageError(
      "the ignition demo needs the kinetics, which this build left out (yaml-cpp was not found)");
}

}  // namespace dualjit::tools
