#include "dsl/graph.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

#include "dsl/normalize.h"
#include "dsl/scalar_ops.h"

namespace dualjit {
namespace {

uint64_t u32(int32_t v) {
  return static_cast<uint32_t>(v);
}

}  // namespace

// Interning hashes every node derivative expansion makes (hundreds of thousands per chunk of
// a chemistry kernel): the fields packed into three words, each multiplied by an odd
// constant, folded and finished with one avalanche (the splitmix64 finaliser).
size_t Graph::NodeHash::operator()(const Node& n) const {
  const uint64_t x = u32(n.a) << 32 | u32(n.b);
  const uint64_t y =
      (u32(n.c) << 32 | u32(n.index)) ^ (u32(n.slot) << 48) ^ static_cast<uint64_t>(n.op) << 24;
  const uint64_t z = std::bit_cast<uint64_t>(n.value);
  uint64_t h = x * 0x9e3779b97f4a7c15ull;
  h = std::rotl(h ^ y * 0xc2b2ae3d27d4eb4full, 31);
  h ^= z * 0x165667b19e3779f9ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

Graph::Graph(std::string label, GraphOptions options)
    : label_(std::move(label)), options_(options) {}

bool Graph::NodeEq::operator()(const Node& x, const Node& y) const {
  return x.op == y.op && x.a == y.a && x.b == y.b && x.c == y.c && x.slot == y.slot &&
         x.index == y.index && std::bit_cast<uint64_t>(x.value) == std::bit_cast<uint64_t>(y.value);
}

NodeId Graph::intern(const Node& n) {
  const bool share = options_.hash_cons || is_leaf(n.op);
  size_t at = 0;
  if (share) {
    if (2 * (indexed_ + 1) > index_.size()) grow_index();
    const size_t mask = index_.size() - 1;
    for (at = NodeHash{}(n)&mask; index_[at] != kNoNode; at = (at + 1) & mask) {
      if (NodeEq{}(nodes_[static_cast<size_t>(index_[at])], n)) return index_[at];
    }
  }
  if (nodes_.size() >= static_cast<size_t>(INT32_MAX)) {
    throw DslError("kernel '" + label_ + "': more than 2^31 nodes");
  }
  const auto id = static_cast<NodeId>(nodes_.size());
  nodes_.push_back(n);
  if (share) {
    index_[at] = id;
    ++indexed_;
  }
  return id;
}

void Graph::grow_index() {
  const std::vector<NodeId> old = std::move(index_);
  index_.assign(std::max<size_t>(64, 2 * old.size()), kNoNode);
  const size_t mask = index_.size() - 1;
  for (NodeId id : old) {
    if (id == kNoNode) continue;
    size_t at = NodeHash{}(nodes_[static_cast<size_t>(id)]) & mask;
    while (index_[at] != kNoNode) at = (at + 1) & mask;
    index_[at] = id;
  }
}

NodeId Graph::constant(double value) {
  if (!std::isfinite(value)) {
    throw DslError("kernel '" + label_ + "': non-finite constant " + std::to_string(value));
  }
  Node n;
  n.op = Op::Const;
  n.value = value;
  return intern(n);
}

NodeId Graph::leaf(Op op, int32_t slot, int32_t index) {
  if (!is_leaf(op) || op == Op::Const) {
    throw DslError("kernel '" + label_ + "': '" + std::string(op_name(op)) + "' is not a leaf");
  }
  Node n;
  n.op = op;
  n.slot = slot;
  n.index = index;
  return intern(n);
}

bool Graph::is_constant(NodeId id, double value) const {
  const Node& n = node(id);
  return n.op == Op::Const && n.value == value;
}

void Graph::check_operand(Op op, NodeId id) const {
  if (id < 0 || static_cast<size_t>(id) >= nodes_.size()) {
    throw DslError("kernel '" + label_ + "': operand of '" + std::string(op_name(op)) +
                   "' is not a node of this graph (id " + std::to_string(id) + ")");
  }
}

NodeId Graph::make(Op op, NodeId a, NodeId b, NodeId c) {
  const int arity = op_arity(op);
  if (arity == 0) {
    throw DslError("kernel '" + label_ + "': make() of leaf op '" + std::string(op_name(op)) + "'");
  }
  const NodeId args[3] = {a, b, c};
  for (int i = 0; i < 3; ++i) {
    if (i < arity) {
      check_operand(op, args[i]);
    } else if (args[i] != kNoNode) {
      throw DslError("kernel '" + label_ + "': too many operands for '" + std::string(op_name(op)) +
                     "'");
    }
  }
  if (op_info(op).commutative && a > b) std::swap(a, b);
  if (options_.simplify) {
    NodeId s = simplified(op, a, b, c);
    if (s == kNoNode) s = normalized(*this, op, a, b, c);
    if (s != kNoNode) return s;
  }
  Node n;
  n.op = op;
  n.a = a;
  n.b = b;
  n.c = c;
  return intern(n);
}

// Returns the simplified node, or kNoNode when no rule applies. Every rule is exact for
// finite operands; x*0 -> 0 and x-x -> 0 assume x finite, as forward-mode AD does.
NodeId Graph::simplified(Op op, NodeId a, NodeId b, NodeId c) {
  const int arity = op_arity(op);
  bool all_const = true;
  for (int i = 0; i < arity; ++i) {
    all_const = all_const && is_constant(i == 0 ? a : (i == 1 ? b : c));
  }
  if (all_const) {
    auto val = [&](NodeId id) { return id == kNoNode ? 0.0 : node(id).value; };
    const double v = eval_scalar_op<double>(op, val(a), val(b), val(c));
    // A non-finite fold (log(-1)) stays a node so that run time sees the same NaN.
    if (std::isfinite(v)) return constant(v);
    return kNoNode;
  }
  switch (op) {
    case Op::Add:
      if (is_constant(a, 0.0)) return b;
      if (is_constant(b, 0.0)) return a;
      break;
    case Op::Sub:
      if (is_constant(b, 0.0)) return a;
      if (is_constant(a, 0.0)) return make(Op::Neg, b);
      if (a == b) return constant(0.0);
      break;
    case Op::Mul:
      if (is_constant(a, 0.0) || is_constant(b, 0.0)) return constant(0.0);
      if (is_constant(a, 1.0)) return b;
      if (is_constant(b, 1.0)) return a;
      if (is_constant(a, -1.0)) return make(Op::Neg, b);
      if (is_constant(b, -1.0)) return make(Op::Neg, a);
      break;
    case Op::Div:
      if (is_constant(b, 1.0)) return a;
      if (is_constant(b, -1.0)) return make(Op::Neg, a);
      if (is_constant(a, 0.0)) break;  // 0/x is NaN at x = 0: keep
      break;
    case Op::Neg:
      if (node(a).op == Op::Neg) return node(a).a;
      break;
    case Op::Cut:
      if (is_constant(a) || node(a).op == Op::Cut) return a;  // nothing to cut through
      break;
    case Op::Tape:
      if (is_constant(a) || node(a).op == Op::Tape) return a;  // nothing to store
      break;
    case Op::Min:
    case Op::Max:
      if (a == b) return a;
      break;
    case Op::Select:
      if (is_constant(a)) return node(a).value != 0.0 ? b : c;
      if (b == c) return b;
      break;
    default:
      break;
  }
  return kNoNode;
}

}  // namespace dualjit
