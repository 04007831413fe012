#include "examples/distributed/petsc_steady_demo.h"

#include <string>

#include "backends/distributed/mpi/rank_device.h"
#include "examples/distributed/petsc_steady.h"

namespace dualjit::cfd {

SteadyDemoReport run_petsc_steady_demo(MPI_Comm comm, SteadyDemoOptions options) {
  const distributed::Communicator c(comm);
  PetscSteadyOptions po;
  po.assembler.backend = options.backend;
  if (assembly::resolve_backend(options.backend) == assembly::Backend::Cuda) {
    const int device = distributed::select_rank_device(c);
    if (device < 0) po.assembler.backend = assembly::Backend::Cpu;
  }
  options.backend = po.assembler.backend;
  const bool gpu = assembly::resolve_backend(po.assembler.backend) == assembly::Backend::Cuda;
  options.solver_text =
      std::to_string(c.size()) + " MPI rank" + (c.size() > 1 ? "s" : "") + " through PETSc " +
      (gpu && po.device_linear_algebra
           ? "(KSP GMRES; assembly, products and multicoloured SGS on each rank's GPU)"
           : std::string("(KSP GMRES, block Jacobi + ILU(0) per rank), assembly on ") +
                 (gpu ? "each rank's GPU" : "the CPU"));
  options.on_one_rank = [&c](const std::function<void()>& f) {
    c.run_on_all([&] {
      if (c.rank() == 0) f();
    });
  };
  options.implicit_solve = [&](const assembly::Problem& p, const EdgeMesh& em, double gamma,
                               std::vector<double>& q, const SteadyOptions& so) {
    po.steady = so;
    return solve_steady_petsc(comm, p, em, gamma, q, po);
  };
  return run_steady_demo(options);
}

}  // namespace dualjit::cfd
