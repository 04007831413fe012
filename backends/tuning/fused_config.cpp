#include "backends/tuning/fused_config.h"

#include <algorithm>
#include <stdexcept>

#include "backends/tuning/config_fields.h"

namespace dualjit::tuning {
namespace {

const std::string kWhat = "fused configuration";

}  // namespace

std::string_view target_name(Target t) {
  return t == Target::Cuda ? "cuda" : "cpu";
}

jit::TuningConfig fused_config(const assembly::FusedOptions& o) {
  jit::TuningConfig c = {{"strategy", o.strategy},
                         {"jacobian", o.jacobian ? "1" : "0"},
                         {"pre_reduce", o.pre_reduce ? "1" : "0"},
                         {"single_tangents", o.single_tangents ? "1" : "0"}};
  add_width_layout(o.width, o.layout, c);
  return c;
}

assembly::FusedOptions fused_options(const jit::TuningConfig& c) {
  assembly::FusedOptions o;
  if (const auto it = c.find("strategy"); it != c.end()) {
    // Records written before strategies had names of their own spell the staged and
    // warp-specialised forms as flags of the two families.
    const bool staged = bool_field(c, "staged", false, kWhat);
    const bool warp = bool_field(c, "warp_specialized", false, kWhat);
    o.strategy = it->second;
    if (c.count("staged") && it->second == "scatter-atomic" && staged)
      o.strategy = "staged-scatter";
    if (c.count("staged") && it->second == "gather-by-column" && staged)
      o.strategy = warp ? "warp-specialized-gather" : "staged-gather";
    const auto& names = assembly::fused_strategy_names();
    if (std::find(names.begin(), names.end(), o.strategy) == names.end())
      throw std::invalid_argument("fused configuration: unknown strategy '" + it->second + "'");
  }
  o.jacobian = bool_field(c, "jacobian", o.jacobian, kWhat);
  read_width_layout(c, o.width, o.layout, kWhat);
  o.pre_reduce = bool_field(c, "pre_reduce", o.pre_reduce, kWhat);
  o.single_tangents = bool_field(c, "single_tangents", o.single_tangents, kWhat);
  return o;
}

std::string describe_fused(const assembly::FusedOptions& o) {
  std::string s = o.strategy;
  if (!o.jacobian) s += " residual";
  s += " " + describe_width_layout(o.width, o.layout);
  if (o.pre_reduce) s += " pre-reduced";
  if (o.single_tangents && o.jacobian) s += " fp32-tangents";
  return s;
}

std::vector<assembly::FusedOptions> fused_candidates(Target target, int block, int vertices,
                                                     bool jacobian) {
  std::vector<assembly::FusedOptions> out;
  const auto add = [&](const char* strategy, int w, int t, int b, int mb, bool reduce = false) {
    assembly::FusedOptions o;
    o.strategy = strategy;
    o.jacobian = jacobian;
    o.width = jacobian ? w : 0;
    o.layout = {t, b, mb};
    o.pre_reduce = reduce;
    for (const auto& seen : out) {  // the residual-only space collapses widths
      if (fused_config(seen) == fused_config(o)) return;
    }
    out.push_back(o);
  };
  const int B = block, k = std::max(vertices, 1);
  if (target == Target::Cpu) {
    for (int w : {B, 1, 2 * B}) add("scatter-atomic", w, 1, 128, 0);
    add("gather-by-column", B, 1, 128, 0);
    return out;
  }
  // Staged scatter with direct Aoff stores is the measured front runner (bench/RESULTS.md):
  // its layout space in full; pre-reduction, plain atomics and gather by column for
  // comparison. 128 staged elements of a Roe edge exceed 48 KiB of shared memory: 96 is the
  // largest block that fits.
  std::vector<int> widths = {B, 2 * B};
  const int one_chunk = assembly::make_fused_strategy("staged-scatter", {})->default_width(k, B);
  if (one_chunk != B && one_chunk != 2 * B) widths.push_back(one_chunk);
  for (int w : widths) {
    for (int b : {64, 32, 96}) add("staged-scatter", w, 1, b, 0);
    // A register cap that binds at 64 threads (65536 / (64 * 5) -> 168): more warps per SM
    // at the price of spills. On the Roe Jacobian (H100) it spills 500+ B and runs 1.3-1.4x
    // slower; kept for kernels with less register demand.
    add("staged-scatter", w, 1, 64, 5);
    add("staged-scatter", w, 1, 64, 0, true);
  }
  if (k > 1) {
    for (int b : {64, 32}) add("staged-scatter", B, std::min(k, 2), b, 0);
    add("staged-scatter", B, std::min(k, 2), 64, 0, true);
  }
  // W = 1: many chunks, spread over threads (5 or 10 threads per element for B = 5).
  for (int t : {2, B, k * B}) add("staged-scatter", 1, t, 32, 0);
  add("staged-scatter", 2, B, 32, 0);
  for (int t : {std::min(k, 2), 1}) add("scatter-atomic", B, t, 64, 0);
  add("scatter-atomic", B, 1, 128, 0);
  add("scatter-atomic", 2 * B, 1, 64, 0);
  // Gather by column, W = B by construction: staged (node-owned blocks, a tile of elements
  // per side; no atomics on meshes with one writer per off slot), and one thread per node.
  for (int b : {64, 32}) add("staged-gather", B, 1, b, 0);
  for (int b : {64, 128}) add("gather-by-column", B, 1, b, 0);
  // Warp-specialised (sm_90 only; elsewhere the candidate fails to compile and is skipped).
  add("warp-specialized-gather", B, 1, 64, 0);
  return out;
}

assembly::FusedOptions fused_heuristic(Target target, int block, int vertices, bool jacobian) {
  assembly::FusedOptions o;
  o.strategy = "staged-scatter";
  o.jacobian = jacobian;
  o.width = jacobian ? block : 0;
  if (target == Target::Cpu) {
    o.strategy = "scatter-atomic";
    o.layout = {1, 128, 0};
    return o;
  }
  // The staged scatter with its own default width (FusedStrategy::default_width), one thread
  // per element, 64 elements per block, no pre-reduction: the Roe Jacobian's best on an H100
  // and an H200 (bench/RESULTS.md).
  if (jacobian)
    o.width = assembly::make_fused_strategy(o.strategy, {})->default_width(vertices, block);
  o.layout = {1, 64, 0};
  o.pre_reduce = false;
  return o;
}

}  // namespace dualjit::tuning
