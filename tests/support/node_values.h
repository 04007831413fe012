// Every node's value of a kernel's graph at one element's data (inputs and params flat, in slot
// order), for tests that check what a pass says of intermediate nodes.
#pragma once

#include <vector>

#include "dsl/kernel.h"
#include "dsl/scalar_ops.h"

namespace dualjit::test {

inline std::vector<double> node_values(const Kernel& k, const std::vector<double>& inputs,
                                       const std::vector<double>& params,
                                       const std::vector<double>& uniforms = {}) {
  const Graph& g = k.graph();
  std::vector<double> v(g.size());
  for (size_t i = 0; i < g.size(); ++i) {
    const Node& n = g.node(static_cast<NodeId>(i));
    switch (n.op) {
      case Op::Const:
        v[i] = n.value;
        break;
      case Op::Input:
        v[i] = inputs.at(static_cast<size_t>(k.flat_index(n)));
        break;
      case Op::Param:
        v[i] = params.at(static_cast<size_t>(k.flat_index(n)));
        break;
      case Op::Uniform:
        v[i] = uniforms.at(static_cast<size_t>(k.flat_index(n)));
        break;
      default: {
        const auto at = [&v](NodeId id) { return id == kNoNode ? 0.0 : v[size_t(id)]; };
        v[i] = eval_scalar_op(n.op, at(n.a), at(n.b), at(n.c));
      }
    }
  }
  return v;
}

}  // namespace dualjit::test
