#include "jit/tape_rest_kernel.h"

#include <algorithm>
#include <map>
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
    // A node's copy (the cones of the factors, the rests and the cuts), made on first use with
    // its operands before it (iteratively: a cone may be deep). Creation order is the node-major
    // schedule's, so a factor's cone is made where its product is used, not all of them before the
    // sums.
    std::vector<Expr> copy(g.size());
    const auto make = [&](NodeId id) {
      const Node& n = g.node(id);
      const auto operand = [&copy, &n](int k) { return copy[static_cast<size_t>(n.operand(k))]; };
      switch (n.op) {
        case Op::Const:
          return kb.constant(n.value);
        case Op::Input:
          return inputs.at(size_t(n.slot)).at(size_t(n.index));
        case Op::Param:
          return params.at(size_t(n.slot)).at(size_t(n.index));
        case Op::Uniform:
          return uniforms.at(size_t(n.slot));
        case Op::Tape:  // factors, rests and cuts are tape-free by tape_linear_outputs
          throw fail("node " + std::to_string(id) + " outside the tapes reads one");
        default:
          switch (op_arity(n.op)) {
            case 1:
              return apply(n.op, operand(0));
            case 2:
              return apply(n.op, operand(0), operand(1));
            default:
              return apply(n.op, operand(0), operand(1), operand(2));
          }
      }
    };
    const auto node = [&](NodeId root) -> const Expr& {
      std::vector<std::pair<NodeId, bool>> stack{{root, false}};  // (node, operands made)
      while (!stack.empty()) {
        const auto [id, ready] = stack.back();
        stack.pop_back();
        if (copy[static_cast<size_t>(id)].valid()) continue;
        if (ready) {
          copy[static_cast<size_t>(id)] = make(id);
          continue;
        }
        stack.push_back({id, true});
        const Node& n = g.node(id);
        for (int k = op_arity(n.op); k-- > 0;)
          if (!copy[static_cast<size_t>(n.operand(k))].valid())
            stack.push_back({n.operand(k), false});
      }
      return copy[static_cast<size_t>(root)];
    };
    const auto product = [&](const std::vector<TapeFactor>& factors) {
      Expr p = kb.constant(1.0);
      for (const TapeFactor& f : factors) p = f.inverse ? p / node(f.node) : p * node(f.node);
      return p;
    };
    // Each output's terms by factor product, each product times its tapes' sum: a mechanism's
    // heat release summed over species weighs every species' terms by one factor, and a
    // product per term would keep every factor and its tangent live across all of them. The
    // sums are made first, over every output's terms in tape order, so that a tape's value,
    // read by several sums, is not live across them.
    struct Group {
      size_t linear;  // index into plan.outputs
      std::vector<TapeFactor> factors;
      Expr sum;
    };
    std::vector<Group> groups;
    std::map<std::pair<size_t, std::vector<TapeFactor>>, size_t> group_of;
    std::vector<std::pair<const TapeTerm*, size_t>> terms;  // (term, linear output)
    for (size_t l = 0; l < plan.outputs.size(); ++l)
      for (const TapeTerm& t : outputs[static_cast<size_t>(plan.outputs[l])].terms)
        if (!t.factors.empty()) terms.push_back({&t, l});
    std::stable_sort(terms.begin(), terms.end(),
                     [](const auto& a, const auto& b) { return a.first->tape < b.first->tape; });
    for (const auto& [t, l] : terms) {
      const Expr term = t->scale * P.at(static_cast<size_t>(t->tape));
      const auto [it, fresh] = group_of.try_emplace({l, t->factors}, groups.size());
      if (fresh) {
        groups.push_back({l, t->factors, term});
      } else {
        groups[it->second].sum = groups[it->second].sum + term;
      }
    }
    std::vector<Expr> out;
    for (size_t l = 0; l < plan.outputs.size(); ++l) {
      Expr sum = kb.constant(0.0);
      for (const Group& gr : groups)
        if (gr.linear == l) sum = sum + product(gr.factors) * gr.sum;
      for (const TapeFreeTerm& t : outputs[static_cast<size_t>(plan.outputs[l])].rest)
        sum = sum + t.scale * product(t.factors) * node(t.node);
      out.push_back(sum);
    }
    for (NodeId c : plan.cuts) out.push_back(node(c));
    for (const std::vector<TapeFactor>& f : plan.factors) out.push_back(product(f));
    kb.output("rest", out);
  });
  return {std::move(rest), tape_values};
}

}  // namespace dualjit::jit
