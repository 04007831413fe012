#include "backends/tuning/autotuner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace dualjit::tuning {
namespace {

using Clock = std::chrono::steady_clock;

void measure(jit::CandidateResult& r, const CandidateTimer& timer, int warmup, int repeats,
             double bytes) {
  try {
    const CandidateTiming t = timer(r.config, warmup, repeats);
    r.ms = t.ms;
    r.registers = t.registers;
    r.spill_bytes = t.spill_bytes;
    r.gbps = t.ms > 0 ? bytes / (t.ms * 1e-3) / 1e9 : 0;
    r.status = "ok";
  } catch (const std::exception& e) {
    std::string what = e.what();
    // Keep the first line: compile errors carry whole logs.
    if (const size_t nl = what.find('\n'); nl != std::string::npos) what.resize(nl);
    r.ms = -1;
    r.status = "failed: " + what;
    spdlog::debug("dualjit: autotune candidate {} failed: {}", r.label, e.what());
  }
}

}  // namespace

jit::TuningRecord autotune(const jit::TuningKey& key, const TuningCandidate& heuristic,
                           const std::vector<TuningCandidate>& candidates,
                           const CandidateTimer& timer, const AutotuneSettings& s) {
  jit::TuningRecord rec;
  rec.key = key;
  rec.heuristic = heuristic.config;
  rec.created = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  // The heuristic first (always timed: every speed-up is relative to it), then the rest in
  // enumeration order.
  std::vector<TuningCandidate> all = {heuristic};
  for (const auto& c : candidates) {
    if (c.config != heuristic.config) all.push_back(c);
  }
  const auto start = Clock::now();
  for (size_t i = 0; i < all.size(); ++i) {
    jit::CandidateResult r;
    r.label = all[i].label;
    r.config = all[i].config;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (i > 0 && elapsed > s.budget_seconds) {
      r.status = "skipped: budget";
    } else {
      measure(r, timer, s.warmup, s.repeats, s.bytes_per_run);
    }
    rec.candidates.push_back(r);
    if (s.on_progress) s.on_progress({i, all.size(), "timing", &rec.candidates.back()});
  }

  // Finalists: the fastest few plus the heuristic, timed again with more repeats.
  std::vector<size_t> ok;
  for (size_t i = 0; i < rec.candidates.size(); ++i) {
    if (rec.candidates[i].ms > 0) ok.push_back(i);
  }
  if (ok.empty()) {
    throw std::runtime_error("autotune " + key.describe() +
                             ": no candidate ran (first: " + rec.candidates.front().status + ")");
  }
  std::stable_sort(ok.begin(), ok.end(),
                   [&](size_t a, size_t b) { return rec.candidates[a].ms < rec.candidates[b].ms; });
  std::vector<size_t> finalists(ok.begin(),
                                ok.begin() + std::min<size_t>(ok.size(), std::max(s.finalists, 1)));
  if (rec.candidates[0].ms > 0 &&
      std::find(finalists.begin(), finalists.end(), 0) == finalists.end())
    finalists.push_back(0);
  std::sort(finalists.begin(), finalists.end());  // enumeration order: the tie-break order
  for (size_t f = 0; f < finalists.size(); ++f) {
    jit::CandidateResult& r = rec.candidates[finalists[f]];
    measure(r, timer, s.warmup, s.finalist_repeats, s.bytes_per_run);
    if (r.ms > 0) r.status = "ok (finalist)";
    if (s.on_progress) s.on_progress({f, finalists.size(), "finalists", &r});
  }
  double best = -1;
  for (size_t i : finalists) {
    const double ms = rec.candidates[i].ms;
    if (ms > 0 && (best < 0 || ms < best)) best = ms;
  }
  if (best < 0) throw std::runtime_error("autotune " + key.describe() + ": every finalist failed");
  size_t winner = SIZE_MAX;
  for (size_t i : finalists) {  // ascending: the first tied one wins, the heuristic (0) first
    const double ms = rec.candidates[i].ms;
    if (ms > 0 && ms <= best * (1 + s.tie_tolerance)) {
      winner = i;
      break;
    }
  }
  rec.winner = rec.candidates[winner].config;
  rec.winner_ms = rec.candidates[winner].ms;
  rec.heuristic_ms = rec.candidates[0].ms;
  spdlog::debug("dualjit: autotune {}: winner {} ({:.4f} ms), heuristic {:.4f} ms", key.describe(),
                rec.candidates[winner].label, rec.winner_ms, rec.heuristic_ms);
  return rec;
}

}  // namespace dualjit::tuning
