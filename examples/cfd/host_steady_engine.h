// Internal to steady_euler.h: the pseudo-time steps on the host, the state and the linear
// algebra (gmres.h with block Jacobi, block ILU(0) or multicoloured Gauss-Seidel) in host
// memory, the residual and Jacobian from the assembler (CPU or GPU backend).
#pragma once

#include <memory>
#include <vector>

#include "backends/assembly/assembler.h"
#include "examples/cfd/steady_engine.h"

namespace dualjit::cfd {

std::unique_ptr<SteadyEngine> host_steady_engine(assembly::Assembler& assembler, const EdgeMesh& em,
                                                 double gamma, std::vector<double> q,
                                                 const SteadyOptions& options);

}  // namespace dualjit::cfd
