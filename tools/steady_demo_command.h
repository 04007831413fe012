// `dualjit demo --problem cfd-steady` (examples/cfd/steady_demo.h): the steady Euler solve of
// the flow over a sphere (meshed by gmsh) or, with --geometry bump, through the channel with a
// bump, or of a Gmsh mesh given by --mesh (physical surfaces "wall" and "farfield"); on the GPU
// (the CPU with --cpu or without one). Prints the residual history table, the explicit
// comparison, the facts and the files it wrote (cfd_steady.vtu, cfd_steady_residual.png), then
// "demo: ok" or "demo: FAILED"; JSON with --json. --size N: the sphere's Gmsh refinement, the
// bump's 12N x 2 x 4N cells (default 4 on a GPU, 2 on the CPU); --mach; --max-iterations;
// --explicit-steps. Under mpirun (or with --petsc) the solve runs over the MPI ranks through
// PETSc (petsc_demo_command.h), without the explicit comparison.
#pragma once

#include "tools/cli_args.h"

namespace dualjit::tools {

inline constexpr const char* kSteadyDemo = "cfd-steady";

std::string steady_demo_description();

// The demo's own options (--geometry, --mach, --explicit-steps), and the refusal of them for other
// problems.
void add_steady_options(Args& args);
void refuse_steady_options(const Args& args, const std::string& problem);

// Returns the exit code: 0 when the solve converged. Throws UsageError for options that do not
// apply or bad values.
int steady_demo(const Args& args);

}  // namespace dualjit::tools
