// Which configuration a run uses: an explicit one if the caller gave it, else the tuning
// database's record for the kernel, mode, device and size bucket, else the documented
// heuristic. The decision is logged at debug level.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "backends/assembly/problem.h"
#include "backends/tuning/tuning_target.h"
#include "jit/tuning_db.h"

namespace dualjit::tuning {

enum class ChoiceSource { Explicit, Tuned, Pinned, Heuristic };
std::string_view choice_source_name(ChoiceSource s);  // "explicit", "tuned", ...

struct ConfigChoice {
  jit::TuningConfig config;
  ChoiceSource source = ChoiceSource::Heuristic;
  double tuned_ms = -1;  // the record's winner time, when it came from a record
};

// A record whose winner does not parse (checked by `valid`, which throws on a bad config) is
// logged and ignored.
ConfigChoice choose_config(const jit::TuningDb& db, const jit::TuningKey& key,
                           const jit::TuningConfig& heuristic,
                           const std::optional<jit::TuningConfig>& explicit_config,
                           const std::function<void(const jit::TuningConfig&)>& valid = {});

// The problem's vector terms' kernels as the fused assembly lowers them in `mode` (Value: a
// term's value_kernel where it has one, assembly::Term::kernel_for).
std::vector<const Kernel*> vector_term_kernels(const assembly::Problem& p,
                                               Mode mode = Mode::Jacobian);
// Largest element count over the vector terms: the size the bucket is taken from.
int64_t vector_term_elements(const assembly::Problem& p);

struct FusedChoice {
  assembly::FusedOptions options;
  ConfigChoice choice;
  jit::TuningKey key;
};
// The fused assembly options for `p` on `target`: explicit, tuned, or fused_heuristic().
// Mode: "jacobian" (residual and Jacobian) or "value" (residual only).
FusedChoice choose_fused_options(
    const jit::TuningDb& db, const TuningTarget& target, const assembly::Problem& p, bool jacobian,
    const std::optional<assembly::FusedOptions>& explicit_options = {});

}  // namespace dualjit::tuning
