// A Kernel: the per-element math, built once by a callback into its own graph, with named
// slots. Active inputs are what derivatives are taken with respect to; params are
// per-element passive data; uniforms are per-launch scalars (changing them never
// recompiles); outputs are a vector or a scalar energy.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dsl/expr.h"
#include "dsl/vec.h"

namespace dualjit {

enum class SlotKind { Input, Param, Uniform, Output };
std::string_view slot_kind_name(SlotKind kind);

struct Slot {
  std::string name;
  SlotKind kind;
  int size = 0;
  int offset = 0;  // first component in the flat array of its kind
};

class KernelBuilder;

class Kernel {
 public:
  using Builder = std::function<void(KernelBuilder&)>;

  // Runs `build` once; throws DslError naming the kernel and slot on misuse.
  Kernel(std::string name, const Builder& build, GraphOptions options = {});

  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  Kernel(Kernel&&) = default;
  Kernel& operator=(Kernel&&) = default;

  const std::string& name() const { return name_; }
  const Graph& graph() const { return *graph_; }

  const std::vector<Slot>& slots() const { return slots_; }
  std::vector<Slot> slots_of(SlotKind kind) const;
  const Slot& slot(const std::string& name) const;  // throws naming the kernel
  // Index of a slot among the slots of its kind (the `slot` field of leaf nodes).
  int slot_index(const std::string& name) const;

  int n_inputs() const { return n_[0]; }    // total active input components
  int n_params() const { return n_[1]; }    // total param components
  int n_uniforms() const { return n_[2]; }  // total uniform scalars
  int n_outputs() const { return n_[3]; }   // total output components
  bool scalar_output() const { return n_outputs() == 1; }

  // Graph node of each flat output component.
  const std::vector<NodeId>& outputs() const { return output_nodes_; }
  // Flat component index of a leaf node (input, param or uniform).
  int flat_index(const Node& leaf) const;

  // SHA-256 of a canonical serialisation of name, slots and graph: the same definition in
  // two processes gives the same hash.
  const std::string& hash() const { return hash_; }
  // Human-readable listing of slots and nodes.
  std::string dump() const;

 private:
  friend class KernelBuilder;
  std::string name_;
  std::unique_ptr<Graph> graph_;  // stable address: Exprs point at it
  std::vector<Slot> slots_;
  std::vector<std::vector<int>> slots_by_kind_;  // kind -> indices into slots_
  std::vector<NodeId> output_nodes_;
  int n_[4] = {0, 0, 0, 0};
  std::string hash_;
};

class KernelBuilder {
 public:
  std::vector<Expr> input(const std::string& name, int size);
  std::vector<Expr> param(const std::string& name, int size);
  Expr uniform(const std::string& name);
  template <size_t N>
  Vec<N> input_vec(const std::string& name) {
    return Vec<N>::from(input(name, static_cast<int>(N)));
  }
  template <size_t N>
  Vec<N> param_vec(const std::string& name) {
    return Vec<N>::from(param(name, static_cast<int>(N)));
  }

  void output(const std::string& name, const std::vector<Expr>& values);
  void output(const std::string& name, const Expr& scalar);
  template <size_t N>
  void output(const std::string& name, const Vec<N>& v) {
    output(name, v.to_vector());
  }

  Expr constant(double value);
  const std::string& kernel_name() const { return kernel_.name_; }

 private:
  friend class Kernel;
  explicit KernelBuilder(Kernel& kernel) : kernel_(kernel) {}
  int add_slot(const std::string& name, SlotKind kind, int size);
  Kernel& kernel_;
};

}  // namespace dualjit
