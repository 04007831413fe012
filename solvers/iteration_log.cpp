#include "solvers/iteration_log.h"

#include <cstdio>

namespace dualjit::solvers {

std::string_view stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::GradientNorm:
      return "gradient norm";
    case StopReason::RelativeGradientNorm:
      return "relative gradient norm";
    case StopReason::NewtonDecrement:
      return "Newton decrement";
    case StopReason::MaxIterations:
      return "maximum iterations";
    case StopReason::LineSearchFailed:
      return "line search failed";
  }
  return "unknown";
}

bool is_converged(StopReason reason) {
  return reason == StopReason::GradientNorm || reason == StopReason::RelativeGradientNorm ||
         reason == StopReason::NewtonDecrement;
}

int SolveResult::n_steps() const {
  int n = 0;
  for (const IterationRecord& r : iterations) n += r.step > 0;
  return n;
}

std::string format_log(const SolveResult& result) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%5s %24s %11s %10s %11s %6s %5s %10s %10s %9s %9s %9s\n",
                "iter", "energy", "|g|", "step", "decrement", "lin", "ls", "shift", "seconds",
                "assembly", "linear", "search");
  out += line;
  for (const IterationRecord& r : result.iterations) {
    std::snprintf(line, sizeof line,
                  "%5d %24.16e %11.4e %10.3e %11.4e %6d %5d %9.2e%c %10.4f %9.4f %9.4f %9.4f\n",
                  r.iteration, r.energy, r.gradient_norm, r.step, r.newton_decrement,
                  r.linear_iterations, r.line_search_evaluations, r.shift,
                  r.gradient_fallback ? '*' : ' ', r.seconds, r.assembly_seconds,
                  r.linear_solve_seconds, r.line_search_seconds);
    out += line;
  }
  std::snprintf(line, sizeof line, "%s: %s after %d steps, %.4f s\n", result.solver.c_str(),
                std::string(stop_reason_name(result.reason)).c_str(), result.n_steps(),
                result.seconds);
  out += line;
  if (!result.message.empty()) out += result.message + "\n";
  return out;
}

}  // namespace dualjit::solvers
