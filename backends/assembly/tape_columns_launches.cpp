#include "backends/assembly/tape_columns_launches.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "backends/assembly/host_element_assembly.h"
#include "jit/emit_tape_columns.h"
#include "jit/tape_rest_kernel.h"

namespace dualjit::assembly {

ColumnStores column_stores(BlockOrder order) {
  switch (order) {
    case BlockOrder::ComponentMajor:
      return ColumnStores::ComponentMajor;
    case BlockOrder::CellMajor:
      return ColumnStores::DirectTiles;
    case BlockOrder::CellMajorColumns:
      return ColumnStores::CellColumns;
  }
  return ColumnStores::DirectTiles;
}

std::vector<jit::ChunkRange> column_launch_groups(const jit::TapeColumnPlan& plan, int slots,
                                                  int per_launch) {
  const auto oversized = [&](size_t g) { return plan.groups[g].staged() > size_t(slots); };
  std::vector<jit::ChunkRange> out;
  for (size_t g = 0; g < plan.groups.size();) {
    size_t end = g + 1;
    if (!oversized(g))
      while (end < plan.groups.size() && !oversized(end) &&
             end - g < static_cast<size_t>(per_launch))
        ++end;
    out.push_back({static_cast<int>(g), static_cast<int>(end)});
    g = end;
  }
  return out;
}

bool dense_rest(const jit::JacobianPattern& rest, size_t n_linear, int n_inputs) {
  const int64_t entries = rest.row_ptr.at(n_linear);
  return 2 * entries > static_cast<int64_t>(n_linear) * n_inputs;
}

std::optional<TapeColumnsLaunches> tape_columns_launches(const Term& term,
                                                         const TapeColumnsSettings& settings) {
  const Kernel& k = term.tape_columns_kernel();
  if (settings.group_slots < 1 || settings.component_group_slots < 1 ||
      settings.launch_groups < 1 || settings.cell_launch_groups < 1 ||
      settings.cell_run_bytes < 1 || settings.min_blocks < 0 || settings.cell_min_blocks < 0 ||
      settings.tapes_min_blocks < 0 || settings.tile_window < 0 || settings.aux_parts < 1 ||
      settings.aux_parts > 32) {
    throw std::invalid_argument(
        "kernel '" + k.name() + "': tape columns of " + std::to_string(settings.group_slots) +
        " slots a group (" + std::to_string(settings.component_group_slots) +
        " component-major), " + std::to_string(settings.launch_groups) + " groups a launch, " +
        std::to_string(settings.cell_launch_groups) + " a cell-major columns' launch, runs of " +
        std::to_string(settings.cell_run_bytes) + " bytes, " + std::to_string(settings.min_blocks) +
        ", " + std::to_string(settings.cell_min_blocks) + " and " +
        std::to_string(settings.tapes_min_blocks) + " (the tapes') blocks a multiprocessor, " +
        "windows of " + std::to_string(settings.tile_window) + " tiles, aux in " +
        std::to_string(settings.aux_parts) + " parts (1 to 32)");
  }
  jit::LaunchLayout tapes_layout = settings.layout;
  if (tapes_layout.min_blocks == 0) tapes_layout.min_blocks = settings.tapes_min_blocks;
  jit::LoweringOptions o = element_lowering(term, Mode::Jacobian, 0, 1);
  o.layout = tapes_layout;
  o.compile_effort = settings.effort;
  o.chunks = {0, 1};  // the tapes' chunk alone, when the kernel keeps tapes
  jit::LoweredKernel tapes = jit::lower(k, o);
  if (!tapes.writes_tape) return std::nullopt;
  TapeColumnsLaunches l;
  l.pattern = jit::tape_pattern(k);
  const std::vector<jit::TapeLinearOutput> outs = jit::tape_linear_outputs(k, l.pattern);
  if (!std::all_of(outs.begin(), outs.end(), [](const auto& x) { return x.linear; }))
    return std::nullopt;
  const jit::TapeColumnPlan plan =
      jit::plan_tape_columns(l.pattern, outs, k.n_inputs(), settings.group_slots);
  const jit::TapeRestKernel rest = jit::tape_rest_kernel(k, l.pattern, outs, plan);
  jit::LoweringOptions ro = element_lowering(term, Mode::Jacobian);
  ro.layout = tapes_layout;
  ro.compile_effort = settings.effort;
  ro.sparse_jacobian = true;
  ro.first_stores = jit::FirstStores::Tiled;
  ro.tiled_values = true;
  const int np = k.n_params();
  if (np == 0) {
    ro.tiled_params = {l.pattern.size, l.pattern.offset};
  } else {
    ro.tiled_params.slots = np + static_cast<int64_t>(l.pattern.tapes.size());
    ro.tiled_params.at.resize(static_cast<size_t>(ro.tiled_params.slots));
    std::iota(ro.tiled_params.at.begin(), ro.tiled_params.at.end(), 0);
    l.gather = jit::lower_tape_gather(k, l.pattern);
  }
  l.tapes = std::move(tapes);
  l.rest = jit::lower(rest.kernel, ro);
  const jit::JacobianPattern& rest_pattern = l.rest.first_pattern;
  if (dense_rest(rest_pattern, plan.outputs.size(), k.n_inputs())) return std::nullopt;
  l.fill = jit::lower_tape_aux(k, plan, rest_pattern, l.pattern, settings.aux_parts);
  // The columns' launches of `p`'s groups (of `slots` staged values at most, but for a column
  // alone) for `stores`, at most `per_launch` groups each.
  const auto launches = [&](const jit::TapeColumnPlan& p, int slots, ColumnStores stores,
                            int per_launch) {
    for (const jit::ChunkRange groups : column_launch_groups(p, slots, per_launch)) {
      jit::TapeColumnsOptions co;
      co.groups = groups;
      co.stores = stores;
      const bool cells = stores == ColumnStores::CellColumns;
      co.min_blocks = cells ? settings.cell_min_blocks : settings.min_blocks;
      co.tile_window = cells ? 1 : settings.tile_window;
      l.columns[stores].push_back(jit::lower_tape_columns(k, p, l.pattern, co, &rest_pattern));
    }
  };
  launches(plan, settings.group_slots, ColumnStores::DirectTiles, settings.launch_groups);
  l.expand = jit::lower_tape_expand(k, plan, &rest_pattern);
  l.direct_size = jit::direct_entries(plan, k.n_outputs(), k.n_inputs()).count;
  launches(
      settings.component_group_slots == settings.group_slots
          ? plan
          : jit::plan_tape_columns(l.pattern, outs, k.n_inputs(), settings.component_group_slots),
      settings.component_group_slots, ColumnStores::ComponentMajor, settings.launch_groups);
  // Cell-major columns: groups of as many columns as align a run on 32-byte sectors (two of
  // GRI-3.0's 54 outputs), as many of those as cell_run_bytes holds for 32 elements.
  const int outputs = k.n_outputs(), align = 32 / std::gcd(8 * outputs, 32);
  const int columns = align * std::max(1, settings.cell_run_bytes / (32 * 8 * outputs * align));
  launches(jit::plan_tape_columns(l.pattern, outs, k.n_inputs(), settings.group_slots, columns),
           settings.group_slots, ColumnStores::CellColumns, settings.cell_launch_groups);
  l.aux_size = jit::TapeColumnsAux(plan, k.n_inputs(), &rest_pattern).size();
  return l;
}

}  // namespace dualjit::assembly
