// Rosenbrock steps on packed systems in host memory: Eigen's partial-pivoting LU per system,
// OpenMP over systems (rosenbrock_engine.h).
#pragma once

#include <memory>

#include "solvers/rosenbrock_engine.h"
#include "solvers/rosenbrock_method.h"
#include "solvers/stiff_integrator.h"

namespace dualjit::solvers {

std::unique_ptr<RosenbrockEngine> make_host_rosenbrock_engine(StiffSystem& system,
                                                              const RosenbrockMethod& method,
                                                              const StiffOptions& options,
                                                              int64_t capacity);

}  // namespace dualjit::solvers
