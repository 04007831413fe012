#include "solvers/stiff_integrator.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "solvers/bdf_integration.h"
#include "solvers/rosenbrock_integration.h"
#include "solvers/solver_error.h"

namespace dualjit::solvers {

std::string_view stiff_status_name(StiffStatus status) {
  switch (status) {
    case StiffStatus::done:
      return "done";
    case StiffStatus::non_finite:
      return "non-finite state";
    case StiffStatus::step_underflow:
      return "step size underflow";
    case StiffStatus::too_many_steps:
      return "too many steps";
  }
  return "?";
}

int64_t StiffReport::failed() const {
  return std::count_if(status.begin(), status.end(),
                       [](StiffStatus s) { return s != StiffStatus::done; });
}

std::string StiffReport::failures(int limit) const {
  std::ostringstream out;
  int shown = 0;
  for (size_t i = 0; i < status.size() && shown < limit; ++i) {
    if (status[i] == StiffStatus::done) continue;
    if (shown++) out << "; ";
    out << "system " << i << ": " << stiff_status_name(status[i]) << " at t = " << t[i] << " after "
        << steps[i] << " steps";
  }
  if (const int64_t n = failed(); n > shown) out << "; and " << n - shown << " more";
  return out.str();
}

StiffReport integrate_stiff(StiffSystem& system, std::span<double> y, std::span<const double> t_end,
                            const StiffOptions& options) {
  const int n = system.size();
  const auto n_systems = static_cast<int64_t>(t_end.size());
  if (n <= 0 || y.size() != static_cast<size_t>(n_systems) * n)
    throw SolverError("integrate_stiff: " + std::to_string(y.size()) + " state values for " +
                      std::to_string(n_systems) + " systems of " + std::to_string(n));
  for (int64_t i = 0; i < n_systems; ++i)
    if (!(t_end[i] >= 0) || !std::isfinite(t_end[i]))
      throw SolverError("integrate_stiff: system " + std::to_string(i) + " has end time " +
                        std::to_string(t_end[i]) + " (finite and >= 0 expected)");
  if (!(options.rtol > 0) || !(options.atol >= 0))
    throw SolverError("integrate_stiff: rtol must be > 0 and atol >= 0");
  if (options.peak_component >= n)
    throw SolverError("integrate_stiff: peak_component " + std::to_string(options.peak_component) +
                      " of a system of " + std::to_string(n));

  switch (options.method) {
    case StiffMethod::bdf:
      return integrate_bdf(system, y, t_end, options);
    case StiffMethod::rodas4:
      return integrate_rosenbrock(system, y, t_end, options);
  }
  throw SolverError("integrate_stiff: unknown method");
}

}  // namespace dualjit::solvers
