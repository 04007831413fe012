#include "solvers/bdf_integration.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "backends/cuda/pinned_allocator.h"
#include "solvers/bdf_coefficients.h"
#include "solvers/bdf_engine.h"
#include "solvers/device_bdf_engine.h"
#include "solvers/host_bdf_engine.h"
#include "solvers/peak_tracker.h"
#include "solvers/stiff_packing.h"
#include "solvers/stopwatch.h"

namespace dualjit::solvers {
namespace {

template <class T>
using RoundArray = std::vector<T, cuda::PinnedAllocator<T>>;

// Consecutive attempts with a non-finite iterate or error before a system is declared failed.
constexpr int kMaxNonFinite = 8;
constexpr uint8_t kWantsJacobian = 1, kWantsLu = 2;

struct SystemControl {
  double t = 0;
  double h = 0;        // the step the differences are (or will be, after rescale) scaled to
  double rescale = 1;  // pending rescale of the differences before the next attempt
  int q = 1, equal_steps = 0, non_finite = 0;
  bool current_jacobian = true;  // evaluated at this step's prediction (or at the start)
  bool lu_valid = false, refresh = false, running = true;
  double c_lu = 0;  // the c = h / alpha_q of the system's LU
  PeakTracker peak;
};

// Scales the step by `factor` (the differences follow at the next attempt).
void scale_step(SystemControl& c, double factor) {
  c.h *= factor;
  c.rescale *= factor;
  c.equal_steps = 0;
}

}  // namespace

StiffReport integrate_bdf(StiffSystem& system, std::span<double> y, std::span<const double> t_end,
                          const StiffOptions& options) {
  const int n = system.size();
  const auto n_systems = static_cast<int64_t>(t_end.size());
  Stopwatch total;
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

  std::unique_ptr<BdfEngine> engine;
  if (!packed.empty()) {
    engine = system.on_device() ? make_device_bdf_engine(system, options, n_systems)
                                : make_host_bdf_engine(system, options, n_systems);
    std::vector<double> rows(packed.size() * n), h(packed.size());
    for (size_t r = 0; r < packed.size(); ++r) {
      std::copy_n(&y[static_cast<size_t>(packed[r]) * n], n, &rows[r * n]);
      h[r] = control[packed[r]].h;
    }
    engine->start(rows, h);
    report.system_jacobians += static_cast<int64_t>(packed.size());
  }

  // The arrays each round sends to the engine or takes from it: page-locked for a device
  // engine, whose transfers of some 60 bytes a row each round otherwise go through the
  // driver's staging buffers.
  const cuda::PinnedAllocator<char> memory(system.on_device());
  RoundArray<int8_t> order(memory), iterations(memory);
  RoundArray<double> c(memory), rescale(memory), err(memory), err_lower(memory), err_higher(memory),
      peak(memory);
  RoundArray<uint8_t> converged(memory), accepted(memory), wants(memory);
  RoundArray<int32_t> refresh(memory), refactor(memory);
  int64_t running = static_cast<int64_t>(packed.size());
  while (running > 0) {
    Stopwatch sc;
    const size_t m = packed.size();
    order.resize(m), c.resize(m), rescale.resize(m), iterations.resize(m), err.resize(m);
    err_lower.resize(m), err_higher.resize(m), peak.resize(m), converged.resize(m);
    accepted.resize(m), wants.resize(m);
    // Per row on many threads (a round's control over 1e5 systems is otherwise as long as the
    // GPU's work); the lists of rows that need a Jacobian or an LU after, in row order.
#pragma omp parallel for schedule(static) if (m > 4096)
    for (int64_t r = 0; r < static_cast<int64_t>(m); ++r) {
      const int32_t i = packed[r];
      SystemControl& s = control[i];
      accepted[r] = 0, wants[r] = 0, order[r] = 1, rescale[r] = 1.0;
      if (!s.running) {  // finished, still in the pack: attempts nothing that is kept
        c[r] = 1e-300;
        continue;
      }
      // The last step ends at t_end; no step beyond max_step.
      const double limit = std::min(options.max_step, t_end[i] - s.t);
      if (s.h > limit) {
        s.rescale *= limit / s.h;
        s.h = limit;
        s.equal_steps = 0;
      }
      order[r] = static_cast<int8_t>(s.q);
      c[r] = s.h / bdf::alpha[s.q];
      rescale[r] = s.rescale;
      s.rescale = 1.0;
      if (s.refresh) {
        wants[r] |= kWantsJacobian;
        s.refresh = false;
        s.current_jacobian = true;
        s.lu_valid = false;
      }
      // CVODE's reuse: an LU whose c is within kLuReuse of the step's stays; the engines
      // scale its corrections by 2 / (1 + c / c_lu).
      if (!s.lu_valid || std::abs(c[r] / s.c_lu - 1) > bdf::kLuReuse) {
        wants[r] |= kWantsLu;
        s.lu_valid = true;
        s.c_lu = c[r];
      }
    }
    refresh.clear(), refactor.clear();
    for (size_t r = 0; r < m; ++r) {
      if (wants[r] & kWantsJacobian) refresh.push_back(static_cast<int32_t>(r));
      if (wants[r] & kWantsLu) refactor.push_back(static_cast<int32_t>(r));
    }
    report.control_seconds += sc.seconds();

    engine->attempt({order, c, rescale, refresh, refactor},
                    {converged, iterations, err, err_lower, err_higher, peak});
    ++report.rounds;
    report.system_jacobians += static_cast<int64_t>(refresh.size());
    report.system_factorizations += static_cast<int64_t>(refactor.size());

    Stopwatch sc2;
    int64_t attempts = 0, stopped = 0;
#pragma omp parallel for schedule(static) reduction(+ : attempts, stopped) if (m > 4096)
    for (int64_t r = 0; r < static_cast<int64_t>(m); ++r) {
      const int32_t i = packed[r];
      SystemControl& s = control[i];
      if (!s.running) continue;
      ++report.steps[i];
      ++attempts;
      const bool finite = converged[r] != 2 && (converged[r] != 1 || !std::isnan(err[r]));
      s.non_finite = finite ? 0 : s.non_finite + 1;
      if (s.non_finite >= kMaxNonFinite) {
        s.running = false;
        report.status[i] = StiffStatus::non_finite;
      } else if (converged[r] != 1 || !finite) {
        ++report.rejected[i];
        if (!s.current_jacobian && finite) {
          s.refresh = true;  // again at the same step, with a Jacobian at the prediction
        } else {
          scale_step(s, finite ? 0.5 : bdf::kMinFactor);
          s.lu_valid = false;
        }
      } else {
        const double safety =
            0.9 * (2 * bdf::kNewtonIterations + 1) / (2 * bdf::kNewtonIterations + iterations[r]);
        if (err[r] > 1) {  // the LU is kept: its c is off, the iteration still converges
          ++report.rejected[i];
          scale_step(s, std::max(bdf::kMinFactor, safety * std::pow(err[r], -1.0 / (s.q + 1))));
        } else {
          accepted[r] = 1;
          const double remaining = t_end[i] - s.t;
          s.t = s.h >= remaining ? t_end[i] : s.t + s.h;
          s.current_jacobian = false;
          ++s.equal_steps;
          if (options.peak_component >= 0) s.peak.add(s.t, peak[r]);
          if (s.t >= t_end[i]) {
            s.running = false;
          } else if (s.equal_steps >= s.q + 1) {
            // The order (q - 1, q or q + 1) that allows the longest next step.
            const double factors[3] = {std::pow(err_lower[r], -1.0 / s.q),
                                       std::pow(err[r], -1.0 / (s.q + 1)),
                                       std::pow(err_higher[r], -1.0 / (s.q + 2))};
            const int best = static_cast<int>(std::max_element(factors, factors + 3) - factors);
            s.q += best - 1;
            scale_step(s, std::min(bdf::kMaxFactor, safety * factors[best]));
          }
        }
      }
      if (s.running && s.h < 10 * (std::nextafter(s.t, INFINITY) - s.t)) {
        s.running = false;
        report.status[i] = StiffStatus::step_underflow;
      }
      if (s.running && report.steps[i] >= options.max_steps) {
        s.running = false;
        report.status[i] = StiffStatus::too_many_steps;
      }
      if (!s.running) ++stopped;
    }
    report.system_steps += attempts;
    running -= stopped;
    engine->accept(accepted);

    pack_running(*engine, packed, control, running, n, y);
    report.control_seconds += sc2.seconds();
  }

  report_ends(report, control, options.peak_component >= 0);
  if (engine) {
    const BdfTimes t = engine->times();
    report.jacobian_seconds = t.jacobian;
    report.factor_seconds = t.factor;
    report.stage_seconds = t.stages;
    report.rhs_seconds = t.rhs;
    report.newton_seconds = t.newton;
    report.newton_sweeps = t.newton_sweeps;
    report.newton_rows = t.newton_rows;
    report.system_rhs = t.rhs_rows;
  }
  report.seconds = total.seconds();
  return report;
}

}  // namespace dualjit::solvers
