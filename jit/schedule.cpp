#include "jit/schedule.h"

#include <algorithm>

namespace dualjit::jit {

std::string_view schedule_name(ScheduleKind kind) {
  switch (kind) {
    case ScheduleKind::DepthFirst:
      return "depth-first";
    case ScheduleKind::NodeMajor:
      return "node-major";
    case ScheduleKind::LeastLive:
      return "least-live";
  }
  return "?";
}

namespace {

// Expansion creates nodes primal node by primal node, so creation order restricted to the
// nodes a store needs is the node-major schedule; with late_params a param is read just before
// its first user instead.
void schedule_node_major(ScalarProgram& program, bool late_params) {
  const Graph& g = *program.graph;
  std::vector<uint8_t> needed(g.size(), 0);
  for (const Store& s : program.stores) needed[s.node] = 1;
  for (size_t i = g.size(); i-- > 0;) {
    if (!needed[i]) continue;
    const Node& nd = g.node(static_cast<NodeId>(i));
    for (int k = 0; k < op_arity(nd.op); ++k) needed[nd.operand(k)] = 1;
  }
  std::vector<uint8_t> stored(g.size(), 0);  // a param stored as it is has no user to wait for
  for (const Store& s : program.stores) stored[s.node] = 1;
  program.order.clear();
  for (size_t i = 0; i < g.size(); ++i) {
    if (!needed[i]) continue;
    const Node& nd = g.node(static_cast<NodeId>(i));
    if (late_params) {
      if (nd.op == Op::Param) {
        if (!stored[i]) continue;
        needed[i] = 2;  // read
      }
      for (int k = 0; k < op_arity(nd.op); ++k) {
        const NodeId operand = nd.operand(k);
        if (needed[operand] == 1 && g.node(operand).op == Op::Param) {
          needed[operand] = 2;  // read
          program.order.push_back(operand);
        }
      }
    }
    program.order.push_back(static_cast<NodeId>(i));
  }
}

}  // namespace

ScheduleKind default_schedule(int width) {
  return width <= 3 ? ScheduleKind::NodeMajor : ScheduleKind::DepthFirst;
}

void schedule(ScalarProgram& program, ScheduleKind kind, bool late_params) {
  if (kind == ScheduleKind::LeastLive) {
    schedule(program, ScheduleKind::DepthFirst);
    const std::vector<NodeId> depth_first = program.order;
    const int live_depth_first = max_live_values(program);
    schedule(program, ScheduleKind::NodeMajor, late_params);
    if (live_depth_first < max_live_values(program)) program.order = depth_first;
    return;
  }
  if (kind == ScheduleKind::NodeMajor) {
    schedule_node_major(program, late_params);
    return;
  }

  const Graph& g = *program.graph;
  const size_t n = g.size();
  // Subtree depth decides which operand goes first (Sethi-Ullman flavour).
  std::vector<int> depth(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Node& nd = g.node(static_cast<NodeId>(i));
    for (int k = 0; k < op_arity(nd.op); ++k) {
      depth[i] = std::max(depth[i], depth[nd.operand(k)] + 1);
    }
  }
  std::vector<uint8_t> state(n, 0);  // 0 unvisited, 1 on stack, 2 emitted
  program.order.clear();
  std::vector<std::pair<NodeId, int>> stack;  // node, next operand position
  for (const Store& s : program.stores) {
    if (state[s.node] == 2) continue;
    stack.emplace_back(s.node, 0);
    state[s.node] = 1;
    while (!stack.empty()) {
      auto& [id, pos] = stack.back();
      const Node& nd = g.node(id);
      const int arity = op_arity(nd.op);
      // Operands sorted by decreasing depth, ties by position (an insertion sort: stable, and
      // no buffer to allocate per visit).
      NodeId ops[3] = {nd.a, nd.b, nd.c};
      for (int i = 1; i < arity; ++i) {
        for (int j = i; j > 0 && depth[ops[j]] > depth[ops[j - 1]]; --j)
          std::swap(ops[j], ops[j - 1]);
      }
      if (pos < arity) {
        const NodeId next = ops[pos++];
        if (state[next] == 0) {
          state[next] = 1;
          stack.emplace_back(next, 0);
        }
        continue;
      }
      state[id] = 2;
      program.order.push_back(id);
      stack.pop_back();
    }
  }
}

int max_live_values(const ScalarProgram& program) {
  const Graph& g = *program.graph;
  std::vector<int> last_use(g.size(), -1), position(g.size(), -1);
  for (size_t i = 0; i < program.order.size(); ++i)
    position[program.order[i]] = static_cast<int>(i);
  for (size_t i = 0; i < program.order.size(); ++i) {
    const Node& nd = g.node(program.order[i]);
    for (int k = 0; k < op_arity(nd.op); ++k) last_use[nd.operand(k)] = static_cast<int>(i);
  }
  // Outputs are stored right after their definition (emit_element_function), so a store
  // keeps nothing alive.
  std::vector<int> delta(program.order.size() + 2, 0);
  for (NodeId id : program.order) {
    const Node& nd = g.node(id);
    if (nd.op == Op::Const) continue;  // literals live in instructions, not registers
    const int born = position[id], dies = std::max(last_use[id], born);
    delta[born] += 1;
    delta[dies + 1] -= 1;
  }
  int live = 0, worst = 0;
  for (int d : delta) worst = std::max(worst, live += d);
  return worst;
}

}  // namespace dualjit::jit
