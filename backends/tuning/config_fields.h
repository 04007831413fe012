// Reading one field of a tuning configuration (jit::TuningConfig: name -> text), shared by the
// configuration families (fused_config.h, element_config.h, element_assembly_config.h).
#pragma once

#include <string>

#include "jit/driver.h"
#include "jit/tuning_db.h"

namespace dualjit::tuning {

// The field's integer, or `fallback` when the field is missing. Throws std::invalid_argument
// "<what>: field '<name>' = '<text>' is not an integer" (what: "fused configuration", ...).
int int_field(const jit::TuningConfig& config, const std::string& name, int fallback,
              const std::string& what);
// 1/true or 0/false; `fallback` when missing; throws like int_field ("is not 0 or 1").
bool bool_field(const jit::TuningConfig& config, const std::string& name, bool fallback,
                const std::string& what);

// The dual width and GPU layout every family has: fields "width", "threads_per_element",
// "elements_per_block", "min_blocks" added to `into`; read back onto width and layout (values
// kept where a field is missing); and their label, "W5 1x64" (+ " mb5" with min_blocks).
void add_width_layout(int width, const jit::LaunchLayout& layout, jit::TuningConfig& into);
void read_width_layout(const jit::TuningConfig& config, int& width, jit::LaunchLayout& layout,
                       const std::string& what);
std::string describe_width_layout(int width, const jit::LaunchLayout& layout);

}  // namespace dualjit::tuning
