#include "solvers/bdf_integration.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "solvers/bdf_engine.h"
#include "solvers/device_bdf_engine.h"
#include "solvers/host_bdf_engine.h"
#include "solvers/stiff_packing.h"
#include "solvers/stopwatch.h"

namespace dualjit::solvers {
namespace {

// Once a quarter of the m packed rows has stopped (or all have), writes the stopped rows'
// states and controls back and keeps the running ones, in order, as the engine's new rows 0,
// 1, ... Only the stopped rows travel: each system's state and control once, when it stops.
void pack_running_rows(BdfEngine& engine, std::vector<int32_t>& packed,
                       std::vector<bdf::StepControl>& control, int64_t running, int n,
                       std::span<double> y) {
  const size_t m = packed.size();
  if (running != 0 && running > static_cast<int64_t>(3 * m / 4)) return;
  std::vector<uint8_t> runs(m);
  engine.running(runs);
  std::vector<int32_t> keep, still, stopped;
  for (size_t r = 0; r < m; ++r) {
    if (runs[r]) {
      keep.push_back(static_cast<int32_t>(r));
      still.push_back(packed[r]);
    } else {
      stopped.push_back(static_cast<int32_t>(r));
    }
  }
  std::vector<double> rows(stopped.size() * n);
  std::vector<bdf::StepControl> rows_control(stopped.size());
  engine.store(stopped, rows, rows_control);
  for (size_t k = 0; k < stopped.size(); ++k) {
    const auto i = static_cast<size_t>(packed[stopped[k]]);
    control[i] = rows_control[k];
    std::copy_n(&rows[k * n], n, &y[i * n]);
  }
  if (!keep.empty()) engine.compact(keep);
  packed = std::move(still);
}

}  // namespace

StiffReport integrate_bdf(StiffSystem& system, std::span<double> y, std::span<const double> t_end,
                          const StiffOptions& options) {
  const int n = system.size();
  const auto n_systems = static_cast<int64_t>(t_end.size());
  Stopwatch total;
  StiffReport report;
  std::vector<bdf::StepControl> control(n_systems);
  std::vector<int32_t> packed;  // original index of each packed row
  for (int64_t i = 0; i < n_systems; ++i) {
    bdf::StepControl& s = control[i];
    s.t_end = t_end[i];
    s.h = options.initial_step > 0 ? options.initial_step : 1e-6 * t_end[i];
    s.h = std::min({s.h, options.max_step, t_end[i]});
    if (t_end[i] > 0)
      packed.push_back(static_cast<int32_t>(i));
    else
      s.running = false;
  }

  if (!packed.empty()) {
    std::unique_ptr<BdfEngine> engine = system.on_device()
                                            ? make_device_bdf_engine(system, options, n_systems)
                                            : make_host_bdf_engine(system, options, n_systems);
    std::vector<double> rows(packed.size() * n);
    std::vector<bdf::StepControl> rows_control(packed.size());
    for (size_t r = 0; r < packed.size(); ++r) {
      std::copy_n(&y[static_cast<size_t>(packed[r]) * n], n, &rows[r * n]);
      rows_control[r] = control[packed[r]];
    }
    engine->start(rows, rows_control);
    report.system_jacobians += static_cast<int64_t>(packed.size());
    while (!packed.empty()) {
      const BdfRound round = engine->plan();
      const int64_t running = engine->attempt();
      ++report.rounds;
      report.system_jacobians += round.refreshed;
      report.system_factorizations += round.refactored;
      pack_running_rows(*engine, packed, control, running, n, y);
    }
    const BdfTimes t = engine->times();
    report.jacobian_seconds = t.jacobian;
    report.factor_seconds = t.factor;
    report.stage_seconds = t.stages;
    report.rhs_seconds = t.rhs;
    report.newton_seconds = t.newton;
    report.control_seconds = t.control;
    report.newton_sweeps = t.newton_sweeps;
    report.newton_rows = t.newton_rows;
    report.system_rhs = t.rhs_rows;
  }

  report.status.resize(n_systems);
  report.steps.resize(n_systems);
  report.rejected.resize(n_systems);
  report.t.resize(n_systems);
  for (int64_t i = 0; i < n_systems; ++i) {
    report.status[i] = static_cast<StiffStatus>(control[i].status);
    report.steps[i] = control[i].steps;
    report.rejected[i] = control[i].rejected;
    report.system_steps += control[i].steps;
  }
  report_ends(report, control, options.peak_component >= 0);
  report.seconds = total.seconds();
  return report;
}

}  // namespace dualjit::solvers
