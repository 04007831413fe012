#include "backends/tuning/tuned_choice.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "jit/logging.h"

namespace dualjit::tuning {

std::string_view choice_source_name(ChoiceSource s) {
  switch (s) {
    case ChoiceSource::Explicit:
      return "explicit";
    case ChoiceSource::Tuned:
      return "tuned";
    case ChoiceSource::Pinned:
      return "pinned";
    case ChoiceSource::Heuristic:
      return "heuristic";
  }
  return "?";
}

ConfigChoice choose_config(const jit::TuningDb& db, const jit::TuningKey& key,
                           const jit::TuningConfig& heuristic,
                           const std::optional<jit::TuningConfig>& explicit_config,
                           const std::function<void(const jit::TuningConfig&)>& valid) {
  jit::init_logging_from_env();
  ConfigChoice c;
  if (explicit_config) {
    c.config = *explicit_config;
    c.source = ChoiceSource::Explicit;
    spdlog::debug("dualjit: {}: explicit configuration {}", key.describe(),
                  jit::format_config(c.config));
    return c;
  }
  if (const auto rec = db.load(key)) {
    try {
      if (valid) valid(rec->winner);
      c.config = rec->winner;
      c.source = rec->pinned ? ChoiceSource::Pinned : ChoiceSource::Tuned;
      c.tuned_ms = rec->winner_ms;
      spdlog::debug("dualjit: {}: {} configuration {} from {}", key.describe(),
                    choice_source_name(c.source), jit::format_config(c.config),
                    db.record_path(key).string());
      return c;
    } catch (const std::exception& e) {
      spdlog::warn("dualjit: tuning record {} has an unusable winner ({}); using the heuristic",
                   db.record_path(key).string(), e.what());
    }
  }
  c.config = heuristic;
  c.source = ChoiceSource::Heuristic;
  spdlog::debug("dualjit: {}: no tuning record, heuristic configuration {}", key.describe(),
                jit::format_config(c.config));
  return c;
}

std::vector<const Kernel*> vector_term_kernels(const assembly::Problem& p, Mode mode) {
  std::vector<const Kernel*> out;
  for (size_t i = 0; i < p.n_terms(); ++i) {
    if (!p.term(i).energy) out.push_back(&p.term(i).kernel_for(mode));
  }
  return out;
}

int64_t vector_term_elements(const assembly::Problem& p) {
  int64_t n = 0;
  for (size_t i = 0; i < p.n_terms(); ++i) {
    if (!p.term(i).energy) n = std::max(n, p.term(i).elements.size());
  }
  return n;
}

FusedChoice choose_fused_options(const jit::TuningDb& db, const TuningTarget& target,
                                 const assembly::Problem& p, bool jacobian,
                                 const std::optional<assembly::FusedOptions>& explicit_options) {
  int vertices = 1;
  for (size_t i = 0; i < p.n_terms(); ++i) {
    if (!p.term(i).energy) vertices = std::max(vertices, p.term(i).elements.k);
  }
  FusedChoice out;
  out.key = tuning_key(
      target, kernels_hash(vector_term_kernels(p, jacobian ? Mode::Jacobian : Mode::Value)),
      jacobian ? "jacobian" : "value", vector_term_elements(p));
  std::optional<jit::TuningConfig> explicit_config;
  if (explicit_options) explicit_config = fused_config(*explicit_options);
  out.choice = choose_config(
      db, out.key, fused_config(fused_heuristic(target.target, p.block_size(), vertices, jacobian)),
      explicit_config, [](const jit::TuningConfig& c) { fused_options(c); });
  out.options = fused_options(out.choice.config);
  return out;
}

}  // namespace dualjit::tuning
