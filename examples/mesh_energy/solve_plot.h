// The convergence picture of one solve (a solver's records, solvers/iteration_log.h) for the
// energy demos that report both how the gradient fell and how the energy approached its final
// value: L-BFGS and gradient descent read better that way than by the gradient alone.
#pragma once

#include <limits>
#include <string>

#include "examples/render/image.h"
#include "solvers/iteration_log.h"

namespace dualjit::mesh_energy {

// Per record, on a log axis against the record's index (x_label names it): the gradient norm
// relative to the first record's, and the energy's distance to a reference energy relative to
// it: the minimum when it is known (`minimum`, e.g. from a Newton solve), else the last
// record's (what is left to gain; the last point, 0, is then left out by the log axis).
render::Image solve_convergence_plot(const solvers::SolveResult& result, const std::string& title,
                                     const std::string& x_label,
                                     double minimum = std::numeric_limits<double>::quiet_NaN());

}  // namespace dualjit::mesh_energy
