// BDF steps on packed systems in host memory: Eigen's partial-pivoting LU per system, OpenMP
// over systems (bdf_engine.h).
#pragma once

#include <memory>

#include "solvers/bdf_engine.h"
#include "solvers/stiff_integrator.h"

namespace dualjit::solvers {

std::unique_ptr<BdfEngine> make_host_bdf_engine(StiffSystem& system, const StiffOptions& options,
                                                int64_t capacity);

}  // namespace dualjit::solvers
