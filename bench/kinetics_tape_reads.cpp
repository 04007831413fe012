// What the tape columns' launches read from the tape a cell, by plan and grid order, against
// what row-major cell-major blocks stored by the columns' launches would need: groups of wide
// runs of columns, or plans by rows (each group some outputs' every column). The counts behind
// bench/RESULTS.md's "row groups", "tile windows" and "wide row runs" paragraphs.
//
//   kinetics_tape_reads [--mechanism FILE[:PHASE]]   (default gri30.yaml, the columns' form)
//
// A group reads its staged tape slots and the leaves of the factored tapes whose components it
// derives (jit/tape_column_groups.h). Group-major, the grid's order by default, every group
// reads its own from DRAM; a launch's groups side by side share theirs; read once, every slot
// a group reads counts once.
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "backends/assembly/tape_columns_launches.h"
#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "jit/tape_column_groups.h"
#include "jit/tape_linear_outputs.h"
#include "jit/tape_pattern.h"

using namespace dualjit;

namespace {

std::set<int64_t> reads(const jit::TapePattern& p, const jit::ColumnGroup& g) {
  std::set<int64_t> s(g.slots.begin(), g.slots.end());
  for (const jit::DerivedSlot& d : g.derived)
    for (const jit::HeadOp& op : p.heads[size_t(d.tape)].ops)
      if (op.kind == jit::HeadOp::Kind::Leaf) s.insert(p.leaf_slot(op.leaf));
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string spec = "gri30.yaml";
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--mechanism") spec = argv[++i];
  const kinetics::Mechanism m = kinetics::load_mechanism(spec);
  const Kernel k = kinetics::production_rates_kernel(
      m, {kinetics::ReactorState::constant_pressure, kinetics::RateLawForm::columns});
  const jit::TapePattern p = jit::tape_pattern(k);
  const std::vector<jit::TapeLinearOutput> outs = jit::tape_linear_outputs(k, p);
  const int ni = k.n_inputs();
  const assembly::TapeColumnsSettings s;
  std::printf("%s: tape of %lld slots a cell, %zu leaves\n", m.file.c_str(),
              static_cast<long long>(p.size), p.leaves.size());
  struct Plan {
    const char* name;
    int slots, columns, per_launch;
  };
  for (const Plan c : {Plan{"tiled (J)", s.group_slots, 0, s.launch_groups},
                       Plan{"component-major (Jc)", s.component_group_slots, 0, s.launch_groups},
                       Plan{"cell-major columns (Jcol)", s.group_slots, 2, s.cell_launch_groups}}) {
    const jit::TapeColumnPlan plan = jit::plan_tape_columns(p, outs, ni, c.slots, c.columns);
    size_t group_major = 0, launches = 0, side_by_side = 0, staged = 0;
    std::set<int64_t> all;
    for (const jit::ColumnGroup& g : plan.groups) {
      staged += g.staged();
      const std::set<int64_t> r = reads(p, g);
      group_major += r.size();
      all.insert(r.begin(), r.end());
    }
    for (const jit::ChunkRange r : assembly::column_launch_groups(plan, c.slots, c.per_launch)) {
      std::set<int64_t> u;
      for (int g = r.first; g < r.last; ++g) {
        const std::set<int64_t> one = reads(p, plan.groups[size_t(g)]);
        u.insert(one.begin(), one.end());
      }
      side_by_side += u.size();
      ++launches;
    }
    std::printf(
        "%s: %zu groups in %zu launches stage %zu values a cell; tape doubles read a cell: "
        "group-major %zu, each launch's groups side by side %zu, once %zu\n",
        c.name, plan.groups.size(), launches, staged, group_major, side_by_side, all.size());
  }
  // Wide groups: consecutive columns G at a time whatever they stage, as a block that stores
  // row runs of G columns (long enough for whole sectors) would need them.
  for (int wide : {8, 16, 27}) {
    const jit::TapeColumnPlan plan = jit::plan_tape_columns(p, outs, ni, 1 << 30, wide);
    std::printf("groups of %d columns:", wide);
    for (const jit::ColumnGroup& g : plan.groups)
      std::printf(" %zu (%zu slots, %zu derived)", g.staged(), g.slots.size(), g.derived.size());
    std::printf(" values staged a cell\n");
  }
  // By rows: what a group of consecutive outputs stages (stored slots and derived
  // components), every column of them; the outputs that read every tape (a heat release)
  // left out, as no group could stage them.
  std::vector<std::set<std::pair<int64_t, int>>> staged(outs.size());
  size_t widest = 0;
  for (size_t o = 0; o < outs.size(); ++o) {
    for (const jit::TapeTerm& t : outs[o].terms) {
      for (size_t i = 0; i < p.entries[size_t(t.tape)].size(); ++i)
        staged[o].insert({p.offset[size_t(t.tape)] + 1 + int64_t(i), -1});
      for (size_t i = 0; i < p.heads[size_t(t.tape)].derived.size(); ++i)
        staged[o].insert({-1 - t.tape, int(i)});
    }
    widest = std::max(widest, staged[o].size());
  }
  std::printf("by rows: an output stages up to %zu values a cell\n", widest);
  for (size_t rows : {1, 2, 4}) {
    size_t total = 0, most = 0, groups = 0;
    for (size_t o0 = 0; o0 < outs.size(); o0 += rows) {
      std::set<std::pair<int64_t, int>> u;
      for (size_t o = o0; o < std::min(o0 + rows, outs.size()); ++o)
        if (staged[o].size() < size_t(p.size)) u.insert(staged[o].begin(), staged[o].end());
      if (u.empty()) continue;
      total += u.size();
      most = std::max(most, u.size());
      ++groups;
    }
    std::printf("by rows of %zu: %zu groups stage %zu values a cell, the largest %zu\n", rows,
                groups, total, most);
  }
}
