#include "backends/assembly/element_rules.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "backends/mesh/element_set.h"
#include "dsl/mode.h"
#include "jit/hessian_pattern.h"

namespace dualjit::assembly {
namespace {

std::string term_label(const Term& t) {
  return "term '" + t.name + "'";
}

std::vector<int> resolved_input_vertex(const Term& t) {
  if (!t.input_vertex.empty()) return t.input_vertex;
  std::vector<int> v(t.kernel->slots_of(SlotKind::Input).size());
  for (size_t s = 0; s < v.size(); ++s) v[s] = static_cast<int>(s);
  return v;
}

// Input slot bound to local vertex a, or -1 (input_vertex is injective, Problem::add_term).
int slot_of_vertex(const std::vector<int>& input_vertex, int a) {
  const auto it = std::find(input_vertex.begin(), input_vertex.end(), a);
  return it == input_vertex.end() ? -1 : static_cast<int>(it - input_vertex.begin());
}

int32_t narrow_offset(int64_t offset, const Term& t) {
  if (offset > std::numeric_limits<int32_t>::max()) {
    throw ProblemError(term_label(t) + ": element-local arrays too large for int32 offsets");
  }
  return static_cast<int32_t>(offset);
}

}  // namespace

std::string_view element_strategy_name(ElementStrategy s) {
  switch (s) {
    case ElementStrategy::Scatter:
      return "element-scatter";
    case ElementStrategy::NodeGather:
      return "node-gather";
    case ElementStrategy::StagedNodeGather:
      return "staged-node-gather";
    default:
      return "element-gather";
  }
}

ElementStrategy parse_element_strategy(std::string_view name) {
  for (ElementStrategy s : {ElementStrategy::Gather, ElementStrategy::Scatter,
                            ElementStrategy::NodeGather, ElementStrategy::StagedNodeGather}) {
    if (name == element_strategy_name(s)) return s;
  }
  throw std::invalid_argument(
      "unknown element strategy '" + std::string(name) +
      "' (element-gather, element-scatter, node-gather, staged-node-gather)");
}

bool mode_is_matrix(Mode mode) {
  return mode == Mode::Hessian || mode == Mode::Jacobian;
}

RowGather input_rows(const Term& t, int block) {
  const std::vector<int> iv = resolved_input_vertex(t);
  RowGather g;
  g.stride = t.kernel->n_inputs();
  g.ptr.push_back(0);
  for (int a = 0; a < t.elements.k; ++a) {
    const int s = slot_of_vertex(iv, a);
    if (s >= 0) {
      g.offset.push_back(narrow_offset(int64_t(s) * block, t));
      g.sign.push_back(1.0);
    }
    g.ptr.push_back(static_cast<int32_t>(g.offset.size()));
  }
  return g;
}

RowGather residual_rows(const Term& t, int block) {
  RowGather g;
  g.stride = t.kernel->n_outputs();
  g.ptr.push_back(0);
  for (int a = 0; a < t.elements.k; ++a) {
    for (size_t o = 0; o < t.output_scatter.size(); ++o) {
      for (const Scatter& sc : t.output_scatter[o]) {
        if (sc.vertex != a) continue;
        g.offset.push_back(narrow_offset(int64_t(o) * block, t));
        g.sign.push_back(sc.sign);
      }
    }
    g.ptr.push_back(static_cast<int32_t>(g.offset.size()));
  }
  return g;
}

EntryGather hessian_entries(const Term& t, int block, bool projected) {
  const std::vector<int> iv = resolved_input_vertex(t);
  const int k = t.elements.k, n = t.kernel->n_inputs(), B = block;
  // Pairs whose second derivative is structurally zero get no source: what adds the entries
  // skips them (a per-vertex mass adds 3 of its block's 9).
  const jit::HessianPattern structure =
      projected ? jit::HessianPattern{} : jit::hessian_pattern(*t.kernel);
  EntryGather g;
  g.stride = static_cast<int64_t>(second_size(Mode::Hessian, n));
  g.ptr.reserve(int64_t(k) * k * B * B + 1);
  g.ptr.push_back(0);
  for (int a = 0; a < k; ++a) {
    for (int b = 0; b < k; ++b) {
      const int sa = slot_of_vertex(iv, a), sb = slot_of_vertex(iv, b);
      for (int i = 0; i < B; ++i) {
        for (int j = 0; j < B; ++j) {
          if (sa >= 0 && sb >= 0 && structure.nonzero(sa * B + i, sb * B + j)) {
            const int gi = sa * B + i, gj = sb * B + j;
            g.offset.push_back(narrow_offset(
                static_cast<int64_t>(packed_upper_index(n, std::min(gi, gj), std::max(gi, gj))),
                t));
            g.sign.push_back(1.0);
          }
          g.ptr.push_back(static_cast<int32_t>(g.offset.size()));
        }
      }
    }
  }
  return g;
}

EntryGather jacobian_entries(const Term& t, int block) {
  const std::vector<int> iv = resolved_input_vertex(t);
  const int k = t.elements.k, n_in = t.kernel->n_inputs(), B = block;
  EntryGather g;
  g.stride = int64_t(t.kernel->n_outputs()) * n_in;
  g.ptr.reserve(int64_t(k) * k * B * B + 1);
  g.ptr.push_back(0);
  for (int a = 0; a < k; ++a) {
    for (int b = 0; b < k; ++b) {
      const int s = slot_of_vertex(iv, b);
      for (int i = 0; i < B; ++i) {
        for (int j = 0; j < B; ++j) {
          // The order of Problem's element matrices: output slot, then its scatter rules.
          for (size_t o = 0; o < t.output_scatter.size() && s >= 0; ++o) {
            for (const Scatter& sc : t.output_scatter[o]) {
              if (sc.vertex != a) continue;
              g.offset.push_back(
                  narrow_offset((int64_t(o) * B + i) * n_in + int64_t(s) * B + j, t));
              g.sign.push_back(sc.sign);
            }
          }
          g.ptr.push_back(static_cast<int32_t>(g.offset.size()));
        }
      }
    }
  }
  return g;
}

std::vector<int32_t> stored_block_slots(const mesh::BlockPattern& pattern, size_t set_index) {
  if (!pattern.has_diagonal()) {
    throw mesh::MeshError("stored_block_slots: element set '" + pattern.set_name(set_index) +
                          "': the pattern has no diagonal blocks (a split pattern)");
  }
  if (pattern.n_blocks() > std::numeric_limits<int32_t>::max()) {
    throw mesh::MeshError("stored_block_slots: element set '" + pattern.set_name(set_index) +
                          "': " + std::to_string(pattern.n_blocks()) +
                          " blocks exceed int32 indices");
  }
  const std::vector<int64_t>& slots = pattern.element_slots(set_index);
  const std::vector<uint8_t>& transposed = pattern.transposed(set_index);
  std::vector<int32_t> out(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    out[i] = !transposed.empty() && transposed[i] ? -1 : static_cast<int32_t>(slots[i]);
  }
  return out;
}

}  // namespace dualjit::assembly
