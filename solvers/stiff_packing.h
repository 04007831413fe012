// The packed rows and per-system controls of integrate_stiff's loops: packing the running rows
// to the front where the controls are on the host (rosenbrock_integration.h; the BDF's
// controls live in its engines, bdf_integration.cpp packs through them), and the report's end
// times and peaks (both).
#pragma once

#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "solvers/stiff_integrator.h"

namespace dualjit::solvers {

// Once a quarter of the m packed rows has finished (or all have), writes the finished rows'
// states back into y and keeps the running ones, in order, as the engine's new rows 0, 1, ...
// Control: a per-system record with `running`; Engine: store(rows) and compact(keep).
template <class Engine, class Control>
void pack_running(Engine& engine, std::vector<int32_t>& packed, const std::vector<Control>& control,
                  int64_t running, int n, std::span<double> y) {
  const size_t m = packed.size();
  if (running != 0 && running > static_cast<int64_t>(3 * m / 4)) return;
  std::vector<double> rows(m * n);
  engine.store(rows);
  std::vector<int32_t> keep, still;
  for (size_t r = 0; r < m; ++r) {
    if (control[packed[r]].running) {
      keep.push_back(static_cast<int32_t>(r));
      still.push_back(packed[r]);
    } else {
      std::copy_n(&rows[r * n], n, &y[static_cast<size_t>(packed[r]) * n]);
    }
  }
  if (!keep.empty()) engine.compact(keep);
  packed = std::move(still);
}

// report.t and, with a peak component, report.peak_time and peak_value from the controls
// (a record with t and a PeakTracker peak).
template <class Control>
void report_ends(StiffReport& report, const std::vector<Control>& control, bool peaks) {
  const auto n_systems = static_cast<int64_t>(control.size());
  for (int64_t i = 0; i < n_systems; ++i) report.t[i] = control[i].t;
  if (!peaks) return;
  report.peak_time.resize(n_systems);
  report.peak_value.resize(n_systems);
  for (int64_t i = 0; i < n_systems; ++i)
    std::tie(report.peak_time[i], report.peak_value[i]) = control[i].peak.peak();
}

}  // namespace dualjit::solvers
