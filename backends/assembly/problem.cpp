#include "backends/assembly/problem.h"

#include <algorithm>

#include "jit/element_driver.h"

namespace dualjit::assembly {
namespace {

std::string term_label(const Term& t) {
  return "term '" + t.name + "'";
}

}  // namespace

// A value or columns kernel replaces the kernel in some launches, which bind the kernel's slots:
// the inputs, params, uniforms and outputs must be the same, in the same order.
void check_kernel_slots(const std::string& what, const Kernel& k, const Kernel& v,
                        const std::string& role) {
  const std::string value = "the " + role + " kernel '" + v.name() + "'",
                    kernel = "the kernel '" + k.name() + "'";
  for (SlotKind kind : {SlotKind::Input, SlotKind::Param, SlotKind::Uniform, SlotKind::Output}) {
    const std::vector<Slot> a = k.slots_of(kind), b = v.slots_of(kind);
    const std::string slot = std::string(slot_kind_name(kind)) + " slot ";
    for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      if (i >= a.size())
        throw ProblemError(what + ": " + slot + "'" + b[i].name + "' is in " + value + ", not in " +
                           kernel);
      if (i >= b.size())
        throw ProblemError(what + ": " + slot + "'" + a[i].name + "' is in " + kernel +
                           ", not in " + value);
      if (a[i].name != b[i].name || a[i].size != b[i].size) {
        throw ProblemError(what + ": " + slot + std::to_string(i) + " is '" + b[i].name + "' (" +
                           std::to_string(b[i].size) + " components) in " + value + ", '" +
                           a[i].name + "' (" + std::to_string(a[i].size) + ") in " + kernel);
      }
    }
  }
}

Problem::Problem(int64_t n_nodes, int block_size) : n_nodes_(n_nodes), block_(block_size) {
  if (n_nodes < 0 || block_size <= 0) {
    throw ProblemError("problem: need n_nodes >= 0 and block size > 0");
  }
}

size_t Problem::add_term(Term t) {
  const std::string what = term_label(t);
  if (!t.kernel) throw ProblemError(what + ": no kernel");
  const Kernel& k = *t.kernel;
  if (t.value_kernel) check_kernel_slots(what, k, *t.value_kernel, "value");
  if (t.columns_kernel) check_kernel_slots(what, k, *t.columns_kernel, "columns");
  const auto inputs = k.slots_of(SlotKind::Input);
  for (const Slot& s : inputs) {
    if (s.size != block_) {
      throw ProblemError(what + ": input slot '" + s.name + "' has " + std::to_string(s.size) +
                         " components, the problem's node field has " + std::to_string(block_));
    }
  }
  if (t.input_vertex.empty()) {
    for (size_t s = 0; s < inputs.size(); ++s) t.input_vertex.push_back(static_cast<int>(s));
  }
  if (t.input_vertex.size() != inputs.size()) {
    throw ProblemError(what + ": binding names " + std::to_string(t.input_vertex.size()) +
                       " vertices for " + std::to_string(inputs.size()) + " input slots");
  }
  for (size_t s = 0; s < inputs.size(); ++s) {
    const int v = t.input_vertex[s];
    if (v < 0 || v >= t.elements.k) {
      throw ProblemError(what + ": input slot '" + inputs[s].name + "' bound to vertex " +
                         std::to_string(v) + " of " + std::to_string(t.elements.k) +
                         "-vertex elements");
    }
    for (size_t r = 0; r < s; ++r) {
      if (t.input_vertex[r] == v) {
        throw ProblemError(what + ": input slots '" + inputs[r].name + "' and '" + inputs[s].name +
                           "' bound to the same vertex " + std::to_string(v));
      }
    }
  }
  if (t.energy) {
    if (!k.scalar_output()) throw ProblemError(what + ": an energy term needs a scalar output");
  } else {
    const auto outputs = k.slots_of(SlotKind::Output);
    if (t.output_scatter.empty()) t.output_scatter.assign(outputs.size(), {Scatter{0, 1.0}});
    if (t.output_scatter.size() != outputs.size()) {
      throw ProblemError(what + ": scatter rules for " + std::to_string(t.output_scatter.size()) +
                         " output slots, the kernel has " + std::to_string(outputs.size()));
    }
    for (size_t o = 0; o < outputs.size(); ++o) {
      if (outputs[o].size != block_) {
        throw ProblemError(what + ": output slot '" + outputs[o].name + "' has " +
                           std::to_string(outputs[o].size) + " components, rows need " +
                           std::to_string(block_));
      }
      for (const Scatter& sc : t.output_scatter[o]) {
        if (sc.vertex < 0 || sc.vertex >= t.elements.k) {
          throw ProblemError(what + ": output '" + outputs[o].name + "' scattered to vertex " +
                             std::to_string(sc.vertex) + " of " + std::to_string(t.elements.k) +
                             "-vertex elements");
        }
      }
    }
  }
  try {
    mesh::validate(t.elements, n_nodes_);
  } catch (const mesh::MeshError& e) {
    throw ProblemError(what + ": " + e.what());
  }
  const size_t want_params = static_cast<size_t>(t.elements.size()) * k.n_params();
  if (t.params.size() != want_params) {
    throw ProblemError(what + ": params hold " + std::to_string(t.params.size()) +
                       " values, expected " + std::to_string(want_params) + " (" +
                       std::to_string(t.elements.size()) + " elements x " +
                       std::to_string(k.n_params()) + ")");
  }
  if (t.uniforms.size() != static_cast<size_t>(k.n_uniforms())) {
    throw ProblemError(what + ": " + std::to_string(t.uniforms.size()) +
                       " uniforms given, the "
                       "kernel has " +
                       std::to_string(k.n_uniforms()));
  }
  terms_.push_back(std::move(t));
  patterns_.clear();  // the sparsity now includes this term
  off_pattern_.reset();
  return terms_.size() - 1;
}

const mesh::BlockPattern& Problem::pattern(mesh::Symmetry symmetry) {
  auto& p = patterns_[symmetry];
  if (!p) {
    std::vector<const mesh::ElementSet*> sets;
    for (const Term& t : terms_) sets.push_back(&t.elements);
    p = std::make_unique<mesh::BlockPattern>(mesh::BlockPattern::build(n_nodes_, sets, symmetry));
  }
  return *p;
}

void Problem::check_values(std::span<const double> values, const std::string& what) const {
  if (values.size() != static_cast<size_t>(n_nodes_) * block_) {
    throw ProblemError("problem: " + what + " has " + std::to_string(values.size()) +
                       " values, expected " + std::to_string(n_nodes_ * block_) + " (" +
                       std::to_string(n_nodes_) + " nodes x " + std::to_string(block_) + ")");
  }
}

const mesh::BlockPattern& Problem::off_pattern() {
  if (!off_pattern_) {
    off_pattern_ = std::make_unique<mesh::BlockPattern>(pattern().without_diagonal());
  }
  return *off_pattern_;
}

int64_t block_offset(BlockOrder order, int64_t e, int64_t i, int64_t elements, int n_out,
                     int n_in) {
  switch (order) {
    case BlockOrder::CellMajor:
      return e * n_out * n_in + i;
    case BlockOrder::ComponentMajor:
      return i * elements + e;
    case BlockOrder::CellMajorColumns:
      return e * n_out * n_in + (i % n_in) * n_out + i / n_in;
  }
  return -1;
}

}  // namespace dualjit::assembly
