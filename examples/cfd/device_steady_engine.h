// Internal to steady_euler.h: the pseudo-time steps on the GPU (CUDA backend). The state, the
// residual, the Jacobian and the Krylov basis stay in device memory (device_gmres.h with block
// Jacobi or multicoloured Gauss-Seidel, device_pseudo_time.h for the time steps); the host
// reads scalars only, until read_state.
#pragma once

#include <memory>
#include <vector>

#include "backends/assembly/assembler.h"
#include "examples/cfd/steady_engine.h"

namespace dualjit::cfd {

std::unique_ptr<SteadyEngine> device_steady_engine(assembly::Assembler& assembler,
                                                   const EdgeMesh& em, double gamma,
                                                   const std::vector<double>& q,
                                                   const SteadyOptions& options);

}  // namespace dualjit::cfd
