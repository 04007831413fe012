#include "jit/tape_column_groups.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace dualjit::jit {
namespace {

// An entry's terms before staging: a tape slot (derived.tape < 0) or a derived component,
// scale, factor product.
struct RawTerm {
  int64_t slot;
  DerivedSlot derived;
  double scale;
  int factor;
};

ColumnGroup stage(const std::vector<int>& columns, const std::vector<int>& column_index,
                  const std::vector<std::vector<std::vector<RawTerm>>>& raw,
                  const std::vector<int>& outputs) {
  ColumnGroup g;
  g.columns = columns;
  std::unordered_map<int64_t, int> staged;
  std::map<std::pair<int, int>, int> derived;
  for (size_t ci = 0; ci < columns.size(); ++ci) {
    const auto& by_output = raw[static_cast<size_t>(column_index[ci])];
    for (size_t oi = 0; oi < outputs.size(); ++oi) {
      ColumnEntry e{outputs[oi], columns[ci], {}};
      for (const RawTerm& t : by_output[oi]) {
        if (t.derived.tape >= 0) {
          const auto [it, fresh] = derived.try_emplace({t.derived.tape, t.derived.component},
                                                       static_cast<int>(g.derived.size()));
          if (fresh) g.derived.push_back(t.derived);
          e.terms.push_back({-1 - it->second, t.scale, t.factor});  // numbered below
          continue;
        }
        const auto [it, fresh] = staged.try_emplace(t.slot, static_cast<int>(g.slots.size()));
        if (fresh) g.slots.push_back(t.slot);
        e.terms.push_back({it->second, t.scale, t.factor});
      }
      g.entries.push_back(std::move(e));
    }
  }
  // The derived are staged after the slots.
  for (ColumnEntry& e : g.entries)
    for (ColumnTerm& t : e.terms)
      if (t.staged < 0) t.staged = static_cast<int>(g.slots.size()) - 1 - t.staged;
  return g;
}

}  // namespace

std::vector<EntryComposition> compose_entries(const ColumnGroup& g) {
  std::vector<EntryComposition> out(g.entries.size());
  // The factor-free entries by column and sorted staged slots.
  std::map<std::pair<int, std::vector<int>>, std::vector<int>> free_entries;
  const auto slots_of = [](const std::vector<ColumnTerm>& terms) {
    std::vector<int> s;
    for (const ColumnTerm& t : terms) s.push_back(t.staged);
    std::sort(s.begin(), s.end());
    return s;
  };
  for (size_t i = 0; i < g.entries.size(); ++i) {
    const ColumnEntry& e = g.entries[i];
    if (e.terms.empty()) continue;
    if (std::all_of(e.terms.begin(), e.terms.end(),
                    [](const ColumnTerm& t) { return t.factor < 0; }))
      free_entries[{e.column, slots_of(e.terms)}].push_back(static_cast<int>(i));
  }
  // Whether `terms` are lambda times entry j's, slot by slot; lambda from the first slot.
  const auto scaled = [&g](const std::vector<ColumnTerm>& terms, int j, double& lambda) {
    std::map<int, double> scale_j;
    for (const ColumnTerm& t : g.entries[static_cast<size_t>(j)].terms)
      scale_j[t.staged] += t.scale;
    std::map<int, double> scale;
    for (const ColumnTerm& t : terms) scale[t.staged] += t.scale;
    if (scale.size() != scale_j.size() || scale_j.begin()->second == 0.0) return false;
    lambda = scale.begin()->second / scale_j.begin()->second;
    for (const auto& [slot, s] : scale) {
      const auto it = scale_j.find(slot);
      if (it == scale_j.end() || s != lambda * it->second) return false;
    }
    return true;
  };
  for (size_t i = 0; i < g.entries.size(); ++i) {
    const ColumnEntry& e = g.entries[i];
    std::map<int, std::vector<ColumnTerm>> by_factor;
    for (const ColumnTerm& t : e.terms)
      if (t.factor >= 0) by_factor[t.factor].push_back(t);
    EntryComposition& c = out[i];
    std::vector<int> covered;  // factors composed
    for (const auto& [f, terms] : by_factor) {
      const auto it = free_entries.find({e.column, slots_of(terms)});
      if (it == free_entries.end()) continue;
      for (int j : it->second) {
        double lambda = 1.0;
        if (!scaled(terms, j, lambda)) continue;
        c.parts.push_back({j, f, lambda});
        covered.push_back(f);
        break;
      }
    }
    for (const ColumnTerm& t : e.terms)
      if (t.factor < 0 || std::find(covered.begin(), covered.end(), t.factor) == covered.end())
        c.rest.push_back(t);
  }
  return out;
}

DirectEntries direct_entries(const TapeColumnPlan& plan, int n_outputs, int n_inputs) {
  DirectEntries d;
  d.n_outputs = n_outputs;
  d.n_inputs = n_inputs;
  d.slot.assign(size_t(n_outputs) * size_t(n_inputs), -1);
  for (const ColumnGroup& g : plan.groups)
    for (const ColumnEntry& e : g.entries)
      if (!e.terms.empty()) d.slot.at(size_t(e.output) * n_inputs + e.column) = 0;
  for (int& s : d.slot)
    if (s == 0) s = d.count++;
  return d;
}

TapeColumnPlan plan_tape_columns(const TapePattern& tapes,
                                 const std::vector<TapeLinearOutput>& outputs, int n_inputs,
                                 int max_group_slots, int group_columns) {
  if (max_group_slots < 1 || n_inputs < 0 || group_columns < 0) {
    throw std::invalid_argument("tape column groups: a group's slots at most " +
                                std::to_string(max_group_slots) + ", inputs " +
                                std::to_string(n_inputs) + ", columns aligned to " +
                                std::to_string(group_columns) + " (at least 1, 0 and 0)");
  }
  TapeColumnPlan plan;
  for (size_t o = 0; o < outputs.size(); ++o)
    if (outputs[o].linear) plan.outputs.push_back(static_cast<int>(o));
  std::map<NodeId, int> cut_index;
  const auto add_cut = [&](const TapeEntry& e) {
    if (e.input < 0 && cut_index.try_emplace(e.cut, static_cast<int>(plan.cuts.size())).second)
      plan.cuts.push_back(e.cut);
  };
  for (size_t t = 0; t < tapes.tapes.size(); ++t) {
    for (const TapeEntry& e : tapes.entries[t]) add_cut(e);
    for (const TapeDerived& d : tapes.heads[t].derived) add_cut(d.direction);
  }
  // raw[column][linear output]: inputs' columns first, then the cuts'.
  const size_t n_columns = static_cast<size_t>(n_inputs) + plan.cuts.size();
  std::vector<std::vector<std::vector<RawTerm>>> raw(
      n_columns, std::vector<std::vector<RawTerm>>(plan.outputs.size()));
  std::map<std::vector<TapeFactor>, int> factor_index;
  for (size_t oi = 0; oi < plan.outputs.size(); ++oi) {
    for (const TapeTerm& t : outputs[static_cast<size_t>(plan.outputs[oi])].terms) {
      if (t.tape < 0 || static_cast<size_t>(t.tape) >= tapes.tapes.size()) {
        throw std::invalid_argument(
            "tape column groups: output " + std::to_string(plan.outputs[oi]) + " names tape " +
            std::to_string(t.tape) + " of " + std::to_string(tapes.tapes.size()));
      }
      int factor = -1;
      if (!t.factors.empty()) {
        const auto [it, fresh] =
            factor_index.try_emplace(t.factors, static_cast<int>(plan.factors.size()));
        if (fresh) plan.factors.push_back(t.factors);
        factor = it->second;
      }
      const auto tape = static_cast<size_t>(t.tape);
      const auto column_of = [&](const TapeEntry& e) {
        const size_t column = e.input >= 0 ? static_cast<size_t>(e.input)
                                           : static_cast<size_t>(n_inputs + cut_index.at(e.cut));
        if (column >= n_columns) {
          throw std::invalid_argument("tape column groups: tape " + std::to_string(tape) +
                                      " has a component of input " + std::to_string(e.input) +
                                      " of " + std::to_string(n_inputs));
        }
        return column;
      };
      const std::vector<TapeEntry>& components = tapes.entries[tape];
      for (size_t i = 0; i < components.size(); ++i) {
        raw[column_of(components[i])][oi].push_back(
            {tapes.offset[tape] + 1 + static_cast<int64_t>(i), {}, t.scale, factor});
      }
      const std::vector<TapeDerived>& derived = tapes.heads[tape].derived;
      for (size_t i = 0; i < derived.size(); ++i) {
        raw[column_of(derived[i].direction)][oi].push_back(
            {-1, {t.tape, static_cast<int>(i)}, t.scale, factor});
      }
    }
  }
  // The inputs' columns in order, a group closed before the slots it stages would pass the
  // limit (a column that alone passes it is a group alone) or, with group_columns, before a
  // multiple of it.
  std::vector<int> columns, index;
  size_t slots = 0;
  const auto close = [&] {
    if (!columns.empty()) plan.groups.push_back(stage(columns, index, raw, plan.outputs));
    columns.clear();
    index.clear();
    slots = 0;
  };
  for (int c = 0; c < n_inputs; ++c) {
    // What the column stages: its components, stored or derived.
    std::map<std::pair<int64_t, int>, bool> distinct;
    for (const std::vector<RawTerm>& terms : raw[static_cast<size_t>(c)])
      for (const RawTerm& t : terms)
        distinct[t.derived.tape < 0
                     ? std::pair<int64_t, int>{t.slot, -1}
                     : std::pair<int64_t, int>{-1 - t.derived.tape, t.derived.component}] = true;
    if (slots + distinct.size() > static_cast<size_t>(max_group_slots) ||
        (group_columns > 0 && c % group_columns == 0))
      close();
    columns.push_back(c);
    index.push_back(c);
    slots += distinct.size();
  }
  close();
  std::vector<int> cut_columns, cut_raw;
  for (size_t i = 0; i < plan.cuts.size(); ++i) {
    cut_columns.push_back(cut_column(static_cast<int>(i)));
    cut_raw.push_back(n_inputs + static_cast<int>(i));
  }
  plan.cut_group = stage(cut_columns, cut_raw, raw, plan.outputs);
  return plan;
}

}  // namespace dualjit::jit
