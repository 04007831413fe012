#include "dsl/kernel.h"

#include <cstdio>
#include <sstream>

#include "dsl/printer.h"
#include "dsl/sha256.h"

namespace dualjit {
namespace {

constexpr int kKinds = 4;

int kind_index(SlotKind kind) {
  return static_cast<int>(kind);
}

}  // namespace

std::string_view slot_kind_name(SlotKind kind) {
  switch (kind) {
    case SlotKind::Input:
      return "input";
    case SlotKind::Param:
      return "param";
    case SlotKind::Uniform:
      return "uniform";
    case SlotKind::Output:
      return "output";
  }
  return "?";
}

Kernel::Kernel(std::string name, const Builder& build, GraphOptions options)
    : name_(std::move(name)),
      graph_(std::make_unique<Graph>(name_, options)),
      slots_by_kind_(kKinds) {
  if (name_.empty()) throw DslError("kernel with an empty name");
  if (!build) throw DslError("kernel '" + name_ + "': no builder callback");
  KernelBuilder builder(*this);
  build(builder);
  if (n_outputs() == 0) throw DslError("kernel '" + name_ + "': no output was set");

  std::ostringstream canon;
  canon << "dualjit-kernel-v1\n" << name_ << '\n';
  for (const Slot& s : slots_) {
    canon << slot_kind_name(s.kind) << ' ' << s.name << ' ' << s.size << '\n';
  }
  for (const Node& n : graph_->nodes()) {
    char value[40];
    std::snprintf(value, sizeof value, "%a", n.value);
    canon << op_name(n.op) << ' ' << n.a << ' ' << n.b << ' ' << n.c << ' ' << n.slot << ' '
          << n.index << ' ' << value << '\n';
  }
  for (NodeId id : output_nodes_) canon << "out " << id << '\n';
  hash_ = sha256_hex(canon.str());
}

std::vector<Slot> Kernel::slots_of(SlotKind kind) const {
  std::vector<Slot> r;
  for (int i : slots_by_kind_[kind_index(kind)]) r.push_back(slots_[i]);
  return r;
}

const Slot& Kernel::slot(const std::string& name) const {
  for (const Slot& s : slots_) {
    if (s.name == name) return s;
  }
  throw DslError("kernel '" + name_ + "' has no slot '" + name + "'");
}

int Kernel::slot_index(const std::string& name) const {
  const Slot& s = slot(name);
  const auto& ids = slots_by_kind_[kind_index(s.kind)];
  for (size_t i = 0; i < ids.size(); ++i) {
    if (slots_[ids[i]].name == name) return static_cast<int>(i);
  }
  return -1;
}

int Kernel::flat_index(const Node& leaf) const {
  SlotKind kind;
  switch (leaf.op) {
    case Op::Input:
      kind = SlotKind::Input;
      break;
    case Op::Param:
      kind = SlotKind::Param;
      break;
    case Op::Uniform:
      kind = SlotKind::Uniform;
      break;
    default:
      throw DslError("kernel '" + name_ + "': flat_index of non-leaf '" +
                     std::string(op_name(leaf.op)) + "'");
  }
  const Slot& s = slots_[slots_by_kind_[kind_index(kind)].at(static_cast<size_t>(leaf.slot))];
  return s.offset + leaf.index;
}

std::string Kernel::dump() const {
  std::ostringstream os;
  os << "kernel " << name_ << " (hash " << hash_.substr(0, 16) << ")\n";
  for (const Slot& s : slots_) {
    os << "  " << slot_kind_name(s.kind) << ' ' << s.name << '[' << s.size << "] at " << s.offset
       << '\n';
  }
  os << print_graph(*graph_);
  os << "outputs:";
  for (NodeId id : output_nodes_) os << " %" << id;
  os << '\n';
  return os.str();
}

int KernelBuilder::add_slot(const std::string& name, SlotKind kind, int size) {
  Kernel& k = kernel_;
  const std::string what =
      "kernel '" + k.name_ + "', " + std::string(slot_kind_name(kind)) + " '" + name + "'";
  if (name.empty()) throw DslError(what + ": empty slot name");
  if (size <= 0) throw DslError(what + ": size must be positive, got " + std::to_string(size));
  for (const Slot& s : k.slots_) {
    if (s.name == name) {
      throw DslError(what + ": duplicate slot name (already a " +
                     std::string(slot_kind_name(s.kind)) + ")");
    }
  }
  const int ki = kind_index(kind);
  Slot s{name, kind, size, k.n_[ki]};
  k.n_[ki] += size;
  k.slots_by_kind_[ki].push_back(static_cast<int>(k.slots_.size()));
  k.slots_.push_back(s);
  return static_cast<int>(k.slots_by_kind_[ki].size()) - 1;
}

std::vector<Expr> KernelBuilder::input(const std::string& name, int size) {
  const int slot = add_slot(name, SlotKind::Input, size);
  std::vector<Expr> r;
  for (int i = 0; i < size; ++i) {
    r.emplace_back(kernel_.graph_.get(), kernel_.graph_->leaf(Op::Input, slot, i));
  }
  return r;
}

std::vector<Expr> KernelBuilder::param(const std::string& name, int size) {
  const int slot = add_slot(name, SlotKind::Param, size);
  std::vector<Expr> r;
  for (int i = 0; i < size; ++i) {
    r.emplace_back(kernel_.graph_.get(), kernel_.graph_->leaf(Op::Param, slot, i));
  }
  return r;
}

Expr KernelBuilder::uniform(const std::string& name) {
  const int slot = add_slot(name, SlotKind::Uniform, 1);
  return Expr(kernel_.graph_.get(), kernel_.graph_->leaf(Op::Uniform, slot, 0));
}

void KernelBuilder::output(const std::string& name, const std::vector<Expr>& values) {
  const std::string what = "kernel '" + kernel_.name_ + "', output '" + name + "'";
  if (values.empty()) throw DslError(what + ": no components");
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i].valid()) {
      throw DslError(what + ": component " + std::to_string(i) + " is unset");
    }
    if (values[i].graph() != kernel_.graph_.get()) {
      throw DslError(what + ": component " + std::to_string(i) +
                     " belongs to another graph (kernel '" + values[i].graph()->label() + "')");
    }
  }
  add_slot(name, SlotKind::Output, static_cast<int>(values.size()));
  for (const Expr& e : values) kernel_.output_nodes_.push_back(e.id());
}

void KernelBuilder::output(const std::string& name, const Expr& scalar) {
  output(name, std::vector<Expr>{scalar});
}

Expr KernelBuilder::constant(double value) {
  return Expr(kernel_.graph_.get(), kernel_.graph_->constant(value));
}

}  // namespace dualjit
