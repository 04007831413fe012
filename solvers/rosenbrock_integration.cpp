#include "solvers/rosenbrock_integration.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "solvers/device_rosenbrock_engine.h"
#include "solvers/host_rosenbrock_engine.h"
#include "solvers/peak_tracker.nvrtc.h"
#include "solvers/rosenbrock_method.h"
#include "solvers/stiff_packing.h"
#include "solvers/stopwatch.h"

namespace dualjit::solvers {
namespace {

// Step size factors of the controller (Hairer and Wanner's usual bounds).
constexpr double kSafety = 0.9, kMinFactor = 0.2, kMaxFactor = 6.0;
// Consecutive attempts with a non-finite error before a system is declared failed.
constexpr int kMaxNonFinite = 8;

struct SystemControl {
  double t = 0, h = 0;
  int non_finite = 0;
  bool rejected_last = false, running = true;
  PeakTracker peak;
};

}  // namespace

StiffReport integrate_rosenbrock(StiffSystem& system, std::span<double> y,
                                 std::span<const double> t_end, const StiffOptions& options) {
  const int n = system.size();
  const auto n_systems = static_cast<int64_t>(t_end.size());
  Stopwatch total;
  const RosenbrockMethod& method = rodas4();
  StiffReport report;
  report.status.assign(n_systems, StiffStatus::done);
  report.t.assign(n_systems, 0.0);
  report.steps.assign(n_systems, 0);
  report.rejected.assign(n_systems, 0);
  std::vector<SystemControl> control(n_systems);
  std::vector<int32_t> packed;  // original index of each packed row
  for (int64_t i = 0; i < n_systems; ++i) {
    control[i].h = options.initial_step > 0 ? options.initial_step : 1e-6 * t_end[i];
    control[i].h = std::min({control[i].h, options.max_step, t_end[i]});
    if (t_end[i] > 0)
      packed.push_back(static_cast<int32_t>(i));
    else
      control[i].running = false;
  }

  std::unique_ptr<RosenbrockEngine> engine;
  if (!packed.empty()) {
    engine = system.on_device() ? make_device_rosenbrock_engine(system, method, options, n_systems)
                                : make_host_rosenbrock_engine(system, method, options, n_systems);
    std::vector<double> rows(packed.size() * n);
    for (size_t r = 0; r < packed.size(); ++r)
      std::copy_n(&y[static_cast<size_t>(packed[r]) * n], n, &rows[r * n]);
    engine->load(rows);
  }

  std::vector<double> h, err, peak;
  std::vector<uint8_t> accepted;
  int64_t running = static_cast<int64_t>(packed.size());
  while (running > 0) {
    const size_t m = packed.size();
    h.resize(m), err.resize(m), peak.resize(m), accepted.assign(m, 0);
    for (size_t r = 0; r < m; ++r) {
      const SystemControl& c = control[packed[r]];
      h[r] = std::min(c.h, t_end[packed[r]] - c.t);
      if (!(h[r] > 0)) h[r] = c.h;  // a finished row still in the pack: its result is unused
    }
    engine->attempt(h, err, peak);
    ++report.rounds;
    report.system_jacobians += static_cast<int64_t>(m);
    report.system_factorizations += static_cast<int64_t>(m);
    report.system_rhs += static_cast<int64_t>(m) * method.stages;

    Stopwatch sc;
    for (size_t r = 0; r < m; ++r) {
      const int32_t i = packed[r];
      SystemControl& c = control[i];
      if (!c.running) continue;
      ++report.steps[i];
      ++report.system_steps;
      const double e = err[r];
      double factor;
      if (std::isnan(e)) {  // a non-finite stage or state: retry smaller, a few times
        ++report.rejected[i];
        factor = kMinFactor;
        if (++c.non_finite >= kMaxNonFinite) {
          c.running = false;
          report.status[i] = StiffStatus::non_finite;
        }
      } else if (e <= 1.0) {
        accepted[r] = 1;
        c.non_finite = 0;
        if (options.peak_component >= 0) c.peak.add(c.t, peak[r]);
        const double remaining = t_end[i] - c.t;
        c.t = h[r] >= remaining ? t_end[i] : c.t + h[r];
        factor = std::clamp(kSafety * std::pow(e, -1.0 / method.error_order), kMinFactor,
                            c.rejected_last ? 1.0 : kMaxFactor);
        c.rejected_last = false;
        if (c.t >= t_end[i]) c.running = false;
      } else {  // too large an error, or a singular step matrix (e = inf)
        ++report.rejected[i];
        factor = std::isinf(e)
                     ? kMinFactor
                     : std::max(kMinFactor, kSafety * std::pow(e, -1.0 / method.error_order));
        c.rejected_last = true;
      }
      c.h = std::min(h[r] * factor, options.max_step);
      if (c.running && (c.h <= 1e-14 * t_end[i] || c.t + c.h == c.t)) {
        c.running = false;
        report.status[i] = StiffStatus::step_underflow;
      }
      if (c.running && report.steps[i] >= options.max_steps) {
        c.running = false;
        report.status[i] = StiffStatus::too_many_steps;
      }
      if (!c.running) --running;
    }
    engine->accept(accepted);

    pack_running(*engine, packed, control, running, n, y);
    report.control_seconds += sc.seconds();
  }

  report_ends(report, control, options.peak_component >= 0);
  if (engine) {
    const RosenbrockTimes t = engine->times();
    report.jacobian_seconds = t.jacobian;
    report.factor_seconds = t.factor;
    report.stage_seconds = t.stages;
  }
  report.seconds = total.seconds();
  return report;
}

}  // namespace dualjit::solvers
