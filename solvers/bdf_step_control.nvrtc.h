// The BDF's step and order control of one system (bdf_integration.h): before an attempt, its
// order, c = h / alpha_q, the rescale of its differences and whether it needs a new Jacobian
// or LU; after it, acceptance, the next step and order, and the end of the system. C++ that is
// also CUDA (CMakeLists.txt embeds it for NVRTC), so that the host engine's loops and the
// device engine's kernels run this one control where the rows are, and a round's control needs
// neither a transfer of per-row arrays nor the host.
#pragma once

#ifndef __CUDACC_RTC__
#include <cmath>

#include "solvers/peak_tracker.nvrtc.h"
#endif

namespace dualjit::solvers::bdf {

constexpr int kNewtonIterations = 4;
constexpr double kMinFactor = 0.2, kMaxFactor = 10.0;
// An LU of I - c_lu J is kept for a step with |c / c_lu - 1| <= kLuReuse, its corrections scaled
// by 2 / (1 + c / c_lu) (CVODE's rule and bound).
constexpr double kLuReuse = 0.3;
// Consecutive attempts with a non-finite iterate or error before a system is declared failed.
constexpr int kMaxNonFinite = 8;

// StepControl::status, as StiffStatus (stiff_integrator.h) numbers them.
constexpr int kDone = 0, kNonFinite = 1, kStepUnderflow = 2, kTooManySteps = 3;

struct StepControl {
  double t = 0, t_end = 0;
  double h = 0;        // the step the differences are (or will be, after rescale) scaled to
  double rescale = 1;  // pending rescale of the differences before the next attempt
  double c_lu = 0;     // the c = h / alpha_q of the system's LU
  int q = 1, equal_steps = 0, non_finite = 0, steps = 0, rejected = 0, status = kDone;
  bool current_jacobian = true;  // evaluated at this step's prediction (or at the start)
  bool lu_valid = false, refresh = false, running = true;
  PeakTracker peak;
};

// An attempt as the engines take it. wants: kWantsJacobian (evaluate J at the prediction),
// kWantsLu (factor I - c J).
constexpr int kWantsJacobian = 1, kWantsLu = 2;
struct StepPlan {
  int order = 1;
  double c = 1e-300, rescale = 1.0;
  int wants = 0;
};

// The engines' result of an attempt (bdf_engine.h): converged = 1 when the Newton iteration
// converged (0: it did not, 2: f or a correction was not finite, 3: the LU is singular); the
// error norms of the order q, q - 1 and q + 1 estimates when converged; the peaked component
// of f at the last iterate.
struct StepOutcome {
  int converged = 0, iterations = 0;
  double err = 0, err_lower = 0, err_higher = 0, peak = 0;
};

// A system's Newton iteration while it goes on; then its StepOutcome::converged.
constexpr unsigned char kNewtonIterating = 255;

// SciPy's test (solve_bdf_system) on the scaled norm of iteration `it`'s correction (it from
// 0), norm_old the previous iteration's (negative at the first): kNewtonIterating to go on, 1
// converged, 0 diverging or too slow to converge within the iterations left, 2 not finite.
inline unsigned char newton_verdict(double norm, double norm_old, int it, double tol) {
  if (!(norm - norm == 0.0)) return 2;  // inf or NaN (no <cmath> on the device's side)
  if (norm_old >= 0) {
    const double rate = norm / norm_old;
    if (rate >= 1 || ::pow(rate, double(kNewtonIterations - it)) / (1 - rate) * norm > tol)
      return 0;
    if (rate / (1 - rate) * norm < tol) return 1;
  } else if (norm == 0) {
    return 1;
  }
  return it + 1 == kNewtonIterations ? 0 : kNewtonIterating;
}

// Scales the step by `factor` (the differences follow at the next attempt).
inline void scale_step(StepControl& s, double factor) {
  s.h *= factor;
  s.rescale *= factor;
  s.equal_steps = 0;
}

// The next attempt of a system; a finished one still in the pack attempts nothing that is
// kept. alpha: bdf_coefficients.h's alpha_q.
inline StepPlan plan_step(StepControl& s, double max_step, const double* alpha) {
  StepPlan p;
  if (!s.running) return p;
  // The last step ends at t_end; no step beyond max_step.
  const double room = s.t_end - s.t, limit = room < max_step ? room : max_step;
  if (s.h > limit) {
    s.rescale *= limit / s.h;
    s.h = limit;
    s.equal_steps = 0;
  }
  p.order = s.q;
  p.c = s.h / alpha[s.q];
  p.rescale = s.rescale;
  s.rescale = 1.0;
  if (s.refresh) {
    p.wants |= kWantsJacobian;
    s.refresh = false;
    s.current_jacobian = true;
    s.lu_valid = false;
  }
  // CVODE's reuse: an LU whose c is within kLuReuse of the step's stays; the engines scale its
  // corrections by 2 / (1 + c / c_lu).
  if (!s.lu_valid || ::fabs(p.c / s.c_lu - 1) > kLuReuse) {
    p.wants |= kWantsLu;
    s.lu_valid = true;
    s.c_lu = p.c;
  }
  return p;
}

// Takes an attempt's outcome; true when the step is accepted (the engine then updates the
// system's differences). A system stops at t_end, or failed with its status.
inline bool conclude_step(StepControl& s, const StepOutcome& o, int max_steps, bool track_peak) {
  if (!s.running) return false;
  ++s.steps;
  bool accepted = false;
  const bool finite = o.converged != 2 && (o.converged != 1 || o.err == o.err);
  s.non_finite = finite ? 0 : s.non_finite + 1;
  if (s.non_finite >= kMaxNonFinite) {
    s.running = false;
    s.status = kNonFinite;
  } else if (o.converged != 1 || !finite) {
    ++s.rejected;
    if (!s.current_jacobian && finite) {
      s.refresh = true;  // again at the same step, with a Jacobian at the prediction
    } else {
      scale_step(s, finite ? 0.5 : kMinFactor);
      s.lu_valid = false;
    }
  } else {
    const double safety =
        0.9 * (2 * kNewtonIterations + 1) / (2 * kNewtonIterations + o.iterations);
    if (o.err > 1) {  // the LU is kept: its c is off, the iteration still converges
      ++s.rejected;
      const double factor = safety * ::pow(o.err, -1.0 / (s.q + 1));
      scale_step(s, factor > kMinFactor ? factor : kMinFactor);
    } else {
      accepted = true;
      const double remaining = s.t_end - s.t;
      s.t = s.h >= remaining ? s.t_end : s.t + s.h;
      s.current_jacobian = false;
      ++s.equal_steps;
      if (track_peak) s.peak.add(s.t, o.peak);
      if (s.t >= s.t_end) {
        s.running = false;
      } else if (s.equal_steps >= s.q + 1) {
        // The order (q - 1, q or q + 1) that allows the longest next step (the first of equals).
        const double same = ::pow(o.err, -1.0 / (s.q + 1)),
                     higher = ::pow(o.err_higher, -1.0 / (s.q + 2));
        double best = ::pow(o.err_lower, -1.0 / s.q);
        int change = -1;
        if (best < same) best = same, change = 0;
        if (best < higher) best = higher, change = 1;
        s.q += change;
        const double factor = safety * best;
        scale_step(s, factor < kMaxFactor ? factor : kMaxFactor);
      }
    }
  }
  if (s.running && s.h < 10 * (::nextafter(s.t, 1.0 / 0.0) - s.t)) {
    s.running = false;
    s.status = kStepUnderflow;
  }
  if (s.running && s.steps >= max_steps) {
    s.running = false;
    s.status = kTooManySteps;
  }
  return accepted;
}

}  // namespace dualjit::solvers::bdf
