// Reading one field of a tuning configuration (jit::TuningConfig: name -> text), shared by the
// configuration families (fused_config.h, element_config.h, element_assembly_config.h).
#pragma once

#include <string>

#include "jit/tuning_db.h"

namespace dualjit::tuning {

// The field's integer, or `fallback` when the field is missing. Throws std::invalid_argument
// "<what>: field '<name>' = '<text>' is not an integer" (what: "fused configuration", ...).
int int_field(const jit::TuningConfig& config, const std::string& name, int fallback,
              const std::string& what);
// 1/true or 0/false; `fallback` when missing; throws like int_field ("is not 0 or 1").
bool bool_field(const jit::TuningConfig& config, const std::string& name, bool fallback,
                const std::string& what);

}  // namespace dualjit::tuning
