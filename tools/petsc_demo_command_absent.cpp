// Without MPI and PETSc, examples/distributed is not built: a distributed run is a usage error
// that says why.
#include "tools/command_support.h"
#include "tools/petsc_demo_command.h"

namespace dualjit::tools {

int petsc_steady_demo(const cfd::SteadyDemoOptions&,
                      const std::function<int(const cfd::SteadyDemoReport&)>&) {
  throw UsageError(
      "a distributed run needs MPI and PETSc, which this build left out (tools/install-deps.sh "
      "installs libopenmpi-dev, openmpi-bin and petsc-dev)");
}

}  // namespace dualjit::tools
