// The autotuning procedure, independent of what is tuned: time every candidate (the
// heuristic default first), re-time the fastest few, break ties deterministically, and return
// a tuning record with every candidate's figures. Candidates that fail to compile or launch
// are reported and skipped; a time budget bounds the first round.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "jit/tuning_db.h"

namespace dualjit::tuning {

struct TuningCandidate {
  std::string label;
  jit::TuningConfig config;
};

struct CandidateTiming {
  double ms = 0;  // median
  int registers = -1;
  int spill_bytes = -1;
};

// Builds the candidate (compile or load, allocate) and returns its median time over
// `repeats` runs after `warmup`; throws when it cannot be compiled or launched.
using CandidateTimer =
    std::function<CandidateTiming(const jit::TuningConfig& config, int warmup, int repeats)>;

struct AutotuneProgress {
  size_t index = 0, total = 0;  // candidate index within the phase
  std::string phase;            // "timing" or "finalists"
  const jit::CandidateResult* result = nullptr;
};

struct AutotuneSettings {
  double budget_seconds = 300;  // first round: candidates after this are skipped ("budget")
  int warmup = 3, repeats = 10;
  int finalists = 3, finalist_repeats = 25;
  // Finalists within this relative distance of the fastest are tied; a tie goes to the
  // heuristic default if it is among them (no change without a measurable gain), else to the
  // earliest candidate in enumeration order.
  double tie_tolerance = 0.02;
  double bytes_per_run = 0;  // bytes the problem must move, for effective GB/s
  std::function<void(const AutotuneProgress&)> on_progress;
};

// `heuristic` is timed first whether or not it is among `candidates`; it is listed once.
// Throws std::runtime_error naming the key when no candidate ran at all.
jit::TuningRecord autotune(const jit::TuningKey& key, const TuningCandidate& heuristic,
                           const std::vector<TuningCandidate>& candidates,
                           const CandidateTimer& timer, const AutotuneSettings& settings);

}  // namespace dualjit::tuning
