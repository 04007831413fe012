#include "jit/tape_rest_kernel.h"

#include <stdexcept>
#include <string>

namespace dualjit::jit {

TapeRestKernel tape_rest_kernel(const Kernel& kernel, const TapePattern& tapes,
                                const std::vector<TapeLinearOutput>& outputs,
                                const TapeColumnPlan& plan) {
  const Graph& g = kernel.graph();
  const auto fail = [&kernel](const std::string& what) {
    return std::invalid_argument("kernel '" + kernel.name() + "': tape rest kernel: " + what);
  };
  for (const Slot& s : kernel.slots())
    if (s.name == "tape_values") throw fail("the kernel has a slot 'tape_values' already");
  if (outputs.size() != kernel.outputs().size())
    throw fail(std::to_string(outputs.size()) + " outputs' terms for " +
               std::to_string(kernel.outputs().size()) + " outputs");
  // The nodes the new kernel needs: the cones of the factors, the rests and the cuts.
  std::vector<uint8_t> needed(g.size(), 0);
  const auto need = [&needed](NodeId id) { needed[static_cast<size_t>(id)] = 1; };
  for (int o : plan.outputs) {
    const TapeLinearOutput& lo = outputs[static_cast<size_t>(o)];
    for (const TapeTerm& t : lo.terms)
      for (const TapeFactor& f : t.factors) need(f.node);
    for (const TapeFreeTerm& t : lo.rest) {
      need(t.node);
      for (const TapeFactor& f : t.factors) need(f.node);
    }
  }
  for (NodeId c : plan.cuts) need(c);
  for (const std::vector<TapeFactor>& product : plan.factors)
    for (const TapeFactor& f : product) need(f.node);
  for (size_t i = g.size(); i-- > 0;) {
    if (!needed[i]) continue;
    const Node& n = g.node(static_cast<NodeId>(i));
    if (n.op == Op::Tape) throw fail("node " + std::to_string(i) + " outside the tapes reads one");
    for (int k = 0; k < op_arity(n.op); ++k) needed[static_cast<size_t>(n.operand(k))] = 1;
  }
  int tape_values = 0;
  Kernel rest(kernel.name() + "_tape_rest", [&](KernelBuilder& kb) {
    std::vector<std::vector<Expr>> inputs, params;
    std::vector<Expr> uniforms;
    for (const Slot& s : kernel.slots()) {
      if (s.kind == SlotKind::Input) inputs.push_back(kb.input(s.name, s.size));
      if (s.kind == SlotKind::Param) params.push_back(kb.param(s.name, s.size));
      if (s.kind == SlotKind::Uniform) uniforms.push_back(kb.uniform(s.name));
    }
    tape_values = kernel.n_params();
    const std::vector<Expr> P = kb.param("tape_values", static_cast<int>(tapes.tapes.size()));
    // The needed nodes, in the graph's order (operands before their nodes).
    std::vector<Expr> copy(g.size());
    for (size_t i = 0; i < g.size(); ++i) {
      if (!needed[i]) continue;
      const Node& n = g.node(static_cast<NodeId>(i));
      const auto operand = [&copy, &n](int k) { return copy[static_cast<size_t>(n.operand(k))]; };
      switch (n.op) {
        case Op::Const:
          copy[i] = kb.constant(n.value);
          break;
        case Op::Input:
          copy[i] = inputs.at(size_t(n.slot)).at(size_t(n.index));
          break;
        case Op::Param:
          copy[i] = params.at(size_t(n.slot)).at(size_t(n.index));
          break;
        case Op::Uniform:
          copy[i] = uniforms.at(size_t(n.slot));
          break;
        default:
          switch (op_arity(n.op)) {
            case 1:
              copy[i] = apply(n.op, operand(0));
              break;
            case 2:
              copy[i] = apply(n.op, operand(0), operand(1));
              break;
            default:
              copy[i] = apply(n.op, operand(0), operand(1), operand(2));
          }
      }
    }
    const auto product = [&copy, &kb](const std::vector<TapeFactor>& factors) {
      Expr p = kb.constant(1.0);
      for (const TapeFactor& f : factors) {
        const Expr& x = copy[static_cast<size_t>(f.node)];
        p = f.inverse ? p / x : p * x;
      }
      return p;
    };
    std::vector<Expr> out;
    for (int o : plan.outputs) {
      const TapeLinearOutput& lo = outputs[static_cast<size_t>(o)];
      Expr sum = kb.constant(0.0);
      for (const TapeTerm& t : lo.terms)
        if (!t.factors.empty())
          sum = sum + t.scale * product(t.factors) * P.at(static_cast<size_t>(t.tape));
      for (const TapeFreeTerm& t : lo.rest)
        sum = sum + t.scale * product(t.factors) * copy[static_cast<size_t>(t.node)];
      out.push_back(sum);
    }
    for (NodeId c : plan.cuts) out.push_back(copy[static_cast<size_t>(c)]);
    for (const std::vector<TapeFactor>& f : plan.factors) out.push_back(product(f));
    kb.output("rest", out);
  });
  return {std::move(rest), tape_values};
}

}  // namespace dualjit::jit
