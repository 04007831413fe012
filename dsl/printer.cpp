#include "dsl/printer.h"

#include <cstdio>
#include <sstream>

namespace dualjit {

std::string print_node(const Graph& graph, NodeId id) {
  const Node& n = graph.node(id);
  std::ostringstream os;
  os << '%' << id << " = " << op_name(n.op);
  switch (n.op) {
    case Op::Const: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", n.value);
      os << ' ' << buf;
      break;
    }
    case Op::Input:
    case Op::Param:
      os << ' ' << n.slot << '[' << n.index << ']';
      break;
    case Op::Uniform:
      os << ' ' << n.slot;
      break;
    default:
      for (int i = 0; i < op_arity(n.op); ++i) os << " %" << n.operand(i);
  }
  return os.str();
}

std::string print_graph(const Graph& graph) {
  std::string out;
  for (size_t i = 0; i < graph.size(); ++i) {
    out += print_node(graph, static_cast<NodeId>(i));
    out += '\n';
  }
  return out;
}

}  // namespace dualjit
