#include "jit/op_counts.h"

#include <sstream>

namespace dualjit::jit {

OpCounts& OpCounts::operator+=(const OpCounts& o) {
  add += o.add, mul += o.mul, fma_pairs += o.fma_pairs, div += o.div, sqrt += o.sqrt;
  special += o.special, select += o.select, loads += o.loads, stores += o.stores;
  return *this;
}

OpCounts count_ops(const ScalarProgram& p) {
  const Graph& g = *p.graph;
  std::vector<int> uses(g.size(), 0);
  std::vector<uint8_t> used_by_add(g.size(), 0);
  for (NodeId id : p.order) {
    const Node& n = g.node(id);
    for (int k = 0; k < op_arity(n.op); ++k) {
      ++uses[n.operand(k)];
      if (n.op == Op::Add || n.op == Op::Sub) used_by_add[n.operand(k)] = 1;
    }
  }
  for (const Store& s : p.stores) ++uses[s.node];
  OpCounts c;
  c.stores = static_cast<int>(p.stores.size());
  for (NodeId id : p.order) {
    const Node& n = g.node(id);
    switch (op_info(n.op).cls) {
      case OpClass::Leaf:
        if (n.op != Op::Const) ++c.loads;
        break;
      case OpClass::Linear:
        ++c.add;
        break;
      case OpClass::Comparison:
      case OpClass::Selection:
      case OpClass::Piecewise:
        ++c.select;
        break;
      case OpClass::Analytic:
        if (n.op == Op::Mul) {
          ++c.mul;
          if (uses[id] == 1 && used_by_add[id]) ++c.fma_pairs;
        } else if (n.op == Op::Div) {
          ++c.div;
        } else if (n.op == Op::Sqrt) {
          ++c.sqrt;
        } else {
          ++c.special;
        }
        break;
    }
  }
  return c;
}

std::string format(const OpCounts& c) {
  std::ostringstream os;
  os << "add " << c.add << ", mul " << c.mul << " (fma-able " << c.fma_pairs << "), div " << c.div
     << ", sqrt " << c.sqrt << ", special " << c.special << ", select " << c.select << ", loads "
     << c.loads << ", stores " << c.stores << ", flops " << c.flops();
  return os.str();
}

}  // namespace dualjit::jit
