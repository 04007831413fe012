// integrate_stiff's RODAS4 method (stiff_integrator.h): one Jacobian, one LU and six stages per
// attempt of every running system, the engine where the system lives (rosenbrock_engine.h).
#pragma once

#include <span>

#include "solvers/stiff_integrator.h"

namespace dualjit::solvers {

// The arguments as integrate_stiff has checked them.
StiffReport integrate_rosenbrock(StiffSystem& system, std::span<double> y,
                                 std::span<const double> t_end, const StiffOptions& options);

}  // namespace dualjit::solvers
