// The expression graph: SSA nodes in topological order (an operand's id is always smaller
// than its user's), hash-consed so that building the same subexpression twice yields the
// same node, with constants folded, trivial identities removed and arithmetic normalised
// (dsl/normalize.h) as nodes are made.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dsl/op.h"

namespace dualjit {

// Misuse of the DSL: the message names the kernel and slot (or op) involved.
class DslError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using NodeId = int32_t;
inline constexpr NodeId kNoNode = -1;

struct Node {
  Op op = Op::Const;
  NodeId a = kNoNode, b = kNoNode, c = kNoNode;  // operands, by arity
  int32_t slot = -1, index = -1;                 // leaves: which slot and component
  double value = 0.0;                            // Const only

  NodeId operand(int i) const { return i == 0 ? a : (i == 1 ? b : c); }
  bool operator==(const Node&) const = default;
};

struct GraphOptions {
  // Constant folding, identity removal and normalisation; off only to measure what they
  // save and to build the unpruned baseline in jit/.
  bool simplify = true;
  // Sharing of identical subexpressions; off only for the unpruned baseline, which models
  // operator-overloading duals that recompute what they are asked to.
  bool hash_cons = true;
};

class Graph {
 public:
  explicit Graph(std::string label = "graph", GraphOptions options = {});

  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  Graph(Graph&&) = default;
  Graph& operator=(Graph&&) = default;

  // Throws DslError on a non-finite value.
  NodeId constant(double value);
  NodeId leaf(Op op, int32_t slot, int32_t index);
  // Adds (or finds) op(a, b, c), simplified when options allow.
  NodeId make(Op op, NodeId a, NodeId b = kNoNode, NodeId c = kNoNode);

  const Node& node(NodeId id) const { return nodes_[static_cast<size_t>(id)]; }
  const std::vector<Node>& nodes() const { return nodes_; }
  size_t size() const { return nodes_.size(); }
  const std::string& label() const { return label_; }
  const GraphOptions& options() const { return options_; }

  bool is_constant(NodeId id, double value) const;
  bool is_constant(NodeId id) const { return node(id).op == Op::Const; }

 private:
  struct NodeHash {
    size_t operator()(const Node& n) const;
  };
  // Constants compare by bits: 0.0 and -0.0 are different nodes (1/x tells them apart).
  struct NodeEq {
    bool operator()(const Node& x, const Node& y) const;
  };
  NodeId intern(const Node& n);
  void grow_index();
  NodeId simplified(Op op, NodeId a, NodeId b, NodeId c);
  void check_operand(Op op, NodeId id) const;

  std::string label_;
  GraphOptions options_;
  std::vector<Node> nodes_;
  // The shared nodes' ids by the hash of the node they name: open addressing with linear
  // probing, at most half full (kNoNode: empty). Derivative expansion interns hundreds of
  // thousands of nodes per chunk, and a node-based map spent most of its time allocating.
  std::vector<NodeId> index_;
  size_t indexed_ = 0;
};

}  // namespace dualjit
