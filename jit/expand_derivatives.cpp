#include "jit/expand_derivatives.h"

#include <algorithm>

#include "dsl/derivative_rules.h"
#include "dsl/expr.h"

namespace dualjit::jit {
namespace {

// The first-order components of a node: only the directions it depends on, ascending. A
// chemistry chunk has a thousand directions and most nodes depend on a few: a vector per
// direction cost a pass over all of them at every node, and gigabytes. Not `present`: no
// derivative at all (always, in a chunk without directions); present with no entries: every
// component a structural zero.
struct Tangent {
  bool present = false;
  std::vector<std::pair<int32_t, NodeId>> nz;  // (direction, component)

  bool empty() const { return !present; }
  // The entries of directions d >= first, ascending.
  auto from(size_t first) const {
    return std::lower_bound(nz.begin(), nz.end(), static_cast<int32_t>(first),
                            [](const auto& e, int32_t x) { return e.first < x; });
  }
  NodeId at(size_t d) const {
    const auto it = from(d);
    return it != nz.end() && it->first == static_cast<int32_t>(d) ? it->second : kNoNode;
  }
};

// fn(d, x_d, y_d) for every direction in either tangent, ascending (kNoNode where one has
// none). A component that both lack is a structural zero of every rule, which makes no node:
// skipping them leaves the graph as a pass over every direction builds it.
template <class Fn>
void for_union(const Tangent& x, const Tangent& y, Fn&& fn) {
  auto i = x.nz.begin(), j = y.nz.begin();
  while (i != x.nz.end() || j != y.nz.end()) {
    if (j == y.nz.end() || (i != x.nz.end() && i->first < j->first)) {
      fn(i->first, i->second, kNoNode);
      ++i;
    } else if (i == x.nz.end() || j->first < i->first) {
      fn(j->first, kNoNode, j->second);
      ++j;
    } else {
      fn(i->first, i->second, j->second);
      ++i, ++j;
    }
  }
}

// Second-order Taylor coefficients of one primal node: the tangent, and per pair of the chunk
// (dense: second-order chunks have few directions) the second derivative, kNoNode where it
// is a structural zero; no pairs: none at all.
struct Taylor {
  NodeId v = kNoNode;
  Tangent t;
  std::vector<NodeId> h;  // per pair
};

class Expander {
 public:
  Expander(const Kernel& kernel, const DerivativePlan& plan, const Chunk& chunk, bool prune,
           const JacobianPattern* sparse, const TapePattern* tapes)
      : kernel_(kernel),
        sparse_(sparse),
        tapes_(tapes && !tapes->empty() && first_order_with_directions(chunk) ? tapes : nullptr),
        chunk_(chunk),
        prune_(prune),
        nreal_(chunk.directions.size()),
        ncut_(first_order_cuts(kernel, chunk)),
        nd_(nreal_ + ncut_),
        np_(chunk.pairs.size()) {
    (void)plan;
    direction_of_.assign(static_cast<size_t>(kernel.n_inputs()), -1);
    for (size_t d = nreal_; d-- > 0;) {
      const int input = chunk.directions[d].input;
      if (input >= 0 && input < kernel.n_inputs())
        direction_of_[static_cast<size_t>(input)] = int(d);
    }
    cut_direction_.assign(kernel.graph().size(), -1);
    GraphOptions o;
    o.simplify = prune;
    o.hash_cons = prune;
    g_ = std::make_unique<Graph>(kernel.name(), o);
  }

  ScalarProgram run(const DerivativePlan& plan) {
    const Graph& pg = kernel_.graph();
    const auto& outs = kernel_.outputs();
    std::vector<size_t> rows;  // the outputs this chunk stores
    if (chunk_.outputs.empty()) {
      for (size_t r = 0; r < outs.size(); ++r) rows.push_back(r);
    } else {
      rows.assign(chunk_.outputs.begin(), chunk_.outputs.end());
    }
    if (chunk_.tape && !tapes_) {
      throw std::logic_error("kernel '" + kernel_.name() + "': a tape chunk without tapes");
    }
    // Only the rows' cone is expanded: a row group of a big kernel is a fraction of it. The
    // tape chunk's is the tapes'; the others stop at the tapes, which they read.
    const std::vector<uint8_t> cone =
        chunk_.tape ? cone_of(pg, tapes_->tapes) : cone_of(pg, outs, rows, tapes_);
    nodes_.resize(pg.size());
    for (size_t i = 0; i < pg.size(); ++i) {
      id_ = static_cast<NodeId>(i);
      if (cone[i]) nodes_[i] = expand(pg.node(id_));
    }
    ScalarProgram prog;
    if (chunk_.tape) {
      store_tapes(prog);
      prog.primal = primal_marks();
      prog.graph = std::move(g_);
      return prog;
    }
    const int n = plan.n_inputs;
    if (chunk_.writes_values) {
      for (size_t k : rows) add_store(prog, Target::Value, k, nodes_[outs[k]].v);
    }
    auto dir_of = [&](int input) { return direction_of_[static_cast<size_t>(input)]; };
    // The derivative in chunk direction d: the output's own component plus, through each cut
    // it depends on, d out/d cut times the cut's total derivative.
    auto tangent = [&](NodeId out, int d) {
      const Taylor& x = nodes_[out];
      if (d < 0 || x.t.empty()) return kNoNode;
      NodeId sum = x.t.at(static_cast<size_t>(d));
      // Through each cut it has a component for, in cut order. (A cut outside this chunk's
      // cone, a row group's, was never expanded: no component, or unpruned a zero one.)
      for (auto it = x.t.from(nreal_);
           it != x.t.nz.end() && static_cast<size_t>(it->first) < nreal_ + cut_operand_.size();
           ++it) {
        sum = add(sum, mul(it->second, cut_total(static_cast<size_t>(it->first) - nreal_, d)));
      }
      return sum;
    };
    auto second = [&](NodeId out, size_t p) {
      const Taylor& x = nodes_[out];
      return x.h.empty() ? kNoNode : x.h[p];
    };
    // Direction-major: one direction's tangents are finished, and die, before the next
    // direction starts, which bounds the live values to the primal plus one direction.
    for (int j : chunk_.first_columns) {
      for (size_t r : rows) {
        const NodeId t = tangent(outs[r], dir_of(j));
        if (!sparse_) {
          add_store(prog, Target::First, r * n + j, t);
          continue;
        }
        const int64_t at = sparse_->index(static_cast<int>(r), j);
        if (at >= 0) {
          add_store(prog, Target::First, static_cast<size_t>(at), t);
        } else if (prune_ && t != kNoNode && !g_->is_constant(t, 0.0)) {
          throw std::logic_error("kernel '" + kernel_.name() + "': output " + std::to_string(r) +
                                 " has a derivative in input " + std::to_string(j) +
                                 " outside its Jacobian pattern");
        }
      }
    }
    for (size_t p = 0; p < np_; ++p) {
      const auto [a, b] = chunk_.pairs[p];
      const Direction da = chunk_.directions[a], db = chunk_.directions[b];
      const size_t index =
          plan.mode == Mode::Hvp
              ? static_cast<size_t>(db.input)
              : packed_upper_index(n, std::min(da.input, db.input), std::max(da.input, db.input));
      add_store(prog, Target::Second, index, second(outs[0], p));
    }
    prog.primal = primal_marks();
    prog.graph = std::move(g_);
    return prog;
  }

 private:
  // What `roots` are computed from. With `tapes`, a tape's operand is not: a tape is read,
  // and its components' cuts are what its tangent needs.
  static std::vector<uint8_t> cone_of(const Graph& g, const std::vector<NodeId>& roots,
                                      const TapePattern* tapes = nullptr) {
    std::vector<uint8_t> mark(g.size(), 0);
    for (NodeId r : roots) mark[r] = 1;
    for (size_t i = g.size(); i-- > 0;) {
      if (!mark[i]) continue;
      const Node& nd = g.node(static_cast<NodeId>(i));
      if (tapes && nd.op == Op::Tape) {
        const int t = tapes->index_of(static_cast<NodeId>(i));
        for (const TapeEntry& e : tapes->entries[static_cast<size_t>(t)])
          if (e.input < 0) mark[e.cut] = 1;
        for (const TapeDerived& d : tapes->heads[static_cast<size_t>(t)].derived)
          if (d.direction.input < 0) mark[d.direction.cut] = 1;
        continue;
      }
      for (int k = 0; k < op_arity(nd.op); ++k) mark[nd.operand(k)] = 1;
    }
    return mark;
  }
  static std::vector<uint8_t> cone_of(const Graph& g, const std::vector<NodeId>& outs,
                                      const std::vector<size_t>& rows, const TapePattern* tapes) {
    std::vector<NodeId> roots;
    for (size_t r : rows) roots.push_back(outs[r]);
    return cone_of(g, roots, tapes);
  }

  // The direction of a tape component in this chunk, or -1 where the chunk has none: an
  // input outside its directions, a cut that expansion gave no direction.
  int tape_direction(const TapeEntry& e) const {
    if (e.input >= 0) return direction_of_[static_cast<size_t>(e.input)];
    const int c = cut_direction_[e.cut];
    return c < 0 ? -1 : static_cast<int>(nreal_) + c;
  }

  // The tape chunk's stores: each tape's value and its stored components, zeros where
  // expansion found none, then the leaves' values. A component the pattern neither stores nor
  // derives would be lost: a logic error.
  void store_tapes(ScalarProgram& prog) {
    for (size_t t = 0; t < tapes_->tapes.size(); ++t) {
      const Taylor& x = nodes_[tapes_->tapes[t]];
      const int64_t off = tapes_->offset[t];
      add_store(prog, Target::Tape, static_cast<size_t>(off), x.v);
      size_t found = 0;
      const std::vector<TapeEntry>& entries = tapes_->entries[t];
      for (size_t j = 0; j < entries.size(); ++j) {
        const int d = tape_direction(entries[j]);
        const NodeId c = d < 0 || x.t.empty() ? kNoNode : x.t.at(static_cast<size_t>(d));
        found += c != kNoNode;
        add_store(prog, Target::Tape, static_cast<size_t>(off + 1 + static_cast<int64_t>(j)), c);
      }
      for (const TapeDerived& dv : tapes_->heads[t].derived) {
        const int d = tape_direction(dv.direction);
        found += d >= 0 && !x.t.empty() && x.t.at(static_cast<size_t>(d)) != kNoNode;
      }
      if (!x.t.empty() && found != x.t.nz.size()) {
        throw std::logic_error("kernel '" + kernel_.name() + "': tape node %" +
                               std::to_string(tapes_->tapes[t]) + " has " +
                               std::to_string(x.t.nz.size()) +
                               " tangent components, its pattern holds " + std::to_string(found));
      }
    }
    for (size_t i = 0; i < tapes_->leaves.size(); ++i) {
      add_store(prog, Target::Tape, static_cast<size_t>(tapes_->leaf_slot(static_cast<int>(i))),
                nodes_[tapes_->leaves[i]].v);
    }
  }

  // A factored tape's head (jit/tape_head.h) as nodes over the tape's leaf slots.
  struct HeadNodes {
    using Value = NodeId;
    Graph& g;
    const TapePattern& p;
    NodeId leaf(int i) const {
      return g.leaf(Op::Input, kTapeSlot, static_cast<int>(p.leaf_slot(i)));
    }
    NodeId constant(double c) const { return g.constant(c); }
    NodeId add(NodeId a, NodeId b) const { return g.make(Op::Add, a, b); }
    NodeId sub(NodeId a, NodeId b) const { return g.make(Op::Sub, a, b); }
    NodeId mul(NodeId a, NodeId b) const { return g.make(Op::Mul, a, b); }
    NodeId div(NodeId a, NodeId b) const { return g.make(Op::Div, a, b); }
    NodeId neg(NodeId a) const { return g.make(Op::Neg, a); }
  };

  // A tape read back: its value and components are leaves of the tape slot.
  Taylor read_tape() {
    const int t = tapes_->index_of(id_);
    const int64_t off = tapes_->offset[static_cast<size_t>(t)];
    Taylor r;
    r.v = g_->leaf(Op::Input, kTapeSlot, static_cast<int>(off));
    const std::vector<TapeEntry>& entries = tapes_->entries[static_cast<size_t>(t)];
    for (size_t j = 0; j < entries.size(); ++j) {
      const int d = tape_direction(entries[j]);
      if (d < 0) continue;
      r.t.nz.emplace_back(d, g_->leaf(Op::Input, kTapeSlot, static_cast<int>(off + 1 + j)));
    }
    // The derived components, from the leaves' values through the head.
    const TapeHead& head = tapes_->heads[static_cast<size_t>(t)];
    HeadNodes algebra{*g_, *tapes_};
    for (const TapeDerived& dv : head.derived) {
      const int d = tape_direction(dv.direction);
      if (d >= 0) r.t.nz.emplace_back(d, head_derivative(head, dv.leaf, algebra));
    }
    std::sort(r.t.nz.begin(), r.t.nz.end());
    r.t.present = !r.t.nz.empty();
    return r;
  }

  void add_store(ScalarProgram& prog, Target target, size_t index, NodeId node) {
    if (node == kNoNode) node = g_->constant(0.0);  // structural zero: written, not computed
    prog.stores.push_back({target, static_cast<int>(index), node});
  }

  // The primal values and the partials of every node, with all they are computed from: the
  // rest of the graph is derivative arithmetic (jit/scalar_program.h).
  std::vector<uint8_t> primal_marks() const {
    std::vector<uint8_t> mark(g_->size(), 0);
    std::vector<NodeId> stack = partials_;
    for (const Taylor& x : nodes_) stack.push_back(x.v);
    while (!stack.empty()) {
      const NodeId id = stack.back();
      stack.pop_back();
      if (id == kNoNode || mark[id]) continue;
      mark[id] = 1;
      const Node& n = g_->node(id);
      for (int k = 0; k < op_arity(n.op); ++k) stack.push_back(n.operand(k));
    }
    return mark;
  }
  NodeId partial(NodeId id) {
    partials_.push_back(id);
    return id;
  }

  // Cut nodes (Op::Cut) get directions of their own in first-order chunks that have
  // directions; second-order ones differentiate straight through them.
  static bool first_order_with_directions(const Chunk& chunk) {
    return !chunk.directions.empty() && chunk.pairs.empty();
  }
  static size_t first_order_cuts(const Kernel& kernel, const Chunk& chunk) {
    if (!first_order_with_directions(chunk)) return 0;
    size_t n = 0;
    const Graph& g = kernel.graph();
    for (size_t i = 0; i < g.size(); ++i) n += g.node(static_cast<NodeId>(i)).op == Op::Cut;
    return n;
  }

  // Cut c's total derivative in chunk direction d: its operand's component, plus through each
  // earlier cut the operand depends on. Memoised: outputs share it.
  NodeId cut_total(size_t c, size_t d) {
    if (cut_total_.empty()) cut_total_.assign(ncut_ * nreal_, kUnset);
    NodeId& memo = cut_total_[c * nreal_ + d];
    if (memo != kUnset) return memo;
    const Tangent& t = cut_operand_[c];
    NodeId sum = t.at(d);
    for (auto it = t.from(nreal_); it != t.nz.end() && static_cast<size_t>(it->first) < nreal_ + c;
         ++it) {
      sum = add(sum, mul(it->second, cut_total(static_cast<size_t>(it->first) - nreal_, d)));
    }
    return memo = sum;
  }

  NodeId zero() { return g_->constant(0.0); }
  NodeId add(NodeId a, NodeId b) {
    if (a == kNoNode) return b;
    if (b == kNoNode) return a;
    return g_->make(Op::Add, a, b);
  }
  NodeId sub(NodeId a, NodeId b) {
    if (b == kNoNode) return a;
    if (a == kNoNode) return g_->make(Op::Neg, b);
    return g_->make(Op::Sub, a, b);
  }
  NodeId mul(NodeId a, NodeId b) {
    if (a == kNoNode || b == kNoNode) return kNoNode;
    return g_->make(Op::Mul, a, b);
  }
  NodeId neg(NodeId a) { return a == kNoNode ? kNoNode : g_->make(Op::Neg, a); }
  NodeId select(NodeId cond, NodeId a, NodeId b) {
    if (a == kNoNode && b == kNoNode) return kNoNode;
    return g_->make(Op::Select, cond, a == kNoNode ? zero() : a, b == kNoNode ? zero() : b);
  }

  // Unpruned: a node with any derivative carries every component, zeros included.
  void densify(Taylor& x) {
    if (prune_ || x.t.empty()) return;
    std::vector<std::pair<int32_t, NodeId>> all;
    all.reserve(nd_);
    for (size_t d = 0; d < nd_; ++d) {
      const NodeId id = x.t.at(d);
      all.emplace_back(static_cast<int32_t>(d), id == kNoNode ? zero() : id);
    }
    x.t.nz.swap(all);
    if (np_ > 0 && x.h.empty()) x.h.assign(np_, kNoNode);
    for (NodeId& id : x.h) {
      if (id == kNoNode) id = zero();
    }
  }

  static NodeId at(const std::vector<NodeId>& v, size_t i) { return v.empty() ? kNoNode : v[i]; }
  static NodeId at(const Tangent& t, size_t d) { return t.at(d); }

  Taylor expand(const Node& n) {
    Taylor r;
    switch (n.op) {
      case Op::Const:
        r.v = g_->constant(n.value);
        return r;
      case Op::Param:
      case Op::Uniform:
        r.v = g_->leaf(n.op, kPrimalSlot, kernel_.flat_index(n));
        return r;
      case Op::Input: {
        const int i = kernel_.flat_index(n);
        r.v = g_->leaf(Op::Input, kPrimalSlot, i);
        for (size_t d = 0; d < nreal_; ++d) {
          const Direction dir = chunk_.directions[d];
          NodeId id = kNoNode;
          if (dir.input == i) id = g_->constant(1.0);
          if (dir.is_hvp_vector()) id = g_->leaf(Op::Input, kDirectionSlot, i);
          if (id != kNoNode) r.t.nz.emplace_back(static_cast<int32_t>(d), id);
        }
        r.t.present = nd_ > 0 && !(prune_ && r.t.nz.empty());
        densify(r);
        return r;
      }
      default:
        break;
    }
    const Taylor& a = nodes_[n.a];
    if (n.op == Op::Tape) {
      // Straight through where tapes are not kept, and in the chunk that stores them.
      if (!tapes_ || chunk_.tape) return a;
      return read_tape();
    }
    if (n.op == Op::Cut) {
      if (ncut_ == 0) return a;  // straight through
      // The cut's own direction: what follows sees one component, not the operand's tangent,
      // which is kept for the composition at the outputs.
      const size_t c = cut_operand_.size();
      cut_operand_.push_back(a.t);
      r.v = a.v;
      if (a.t.empty()) return r;  // a cut of something without derivative: nothing to carry
      cut_direction_[id_] = static_cast<int>(c);
      r.t.present = true;
      r.t.nz.emplace_back(static_cast<int32_t>(nreal_ + c), g_->constant(1.0));
      densify(r);
      return r;
    }
    const Taylor empty;
    const Taylor& b = n.b == kNoNode ? empty : nodes_[n.b];
    const Taylor& c = n.c == kNoNode ? empty : nodes_[n.c];
    r.v = g_->make(n.op, a.v, b.v == kNoNode ? kNoNode : b.v, c.v == kNoNode ? kNoNode : c.v);
    const OpClass cls = op_info(n.op).cls;
    if (cls == OpClass::Comparison || n.op == Op::Sign) return r;

    // Per-direction (over the directions of x and y) and per-pair combination, with the
    // structural zeros skipped.
    auto each = [&](const Tangent& x, const Tangent& y, auto&& fn_t, auto&& fn_h, bool any) {
      if (!any) return;
      r.t.present = nd_ > 0;
      for_union(x, y, [&](int32_t d, NodeId xd, NodeId yd) {
        const NodeId id = fn_t(xd, yd);
        if (id != kNoNode) r.t.nz.emplace_back(d, id);
      });
      if (np_ > 0) {
        r.h.assign(np_, kNoNode);
        for (size_t p = 0; p < np_; ++p) r.h[p] = fn_h(p);
      }
    };

    switch (n.op) {
      case Op::Add:
      case Op::Sub:
      case Op::Neg: {
        const bool s = n.op == Op::Sub, ng = n.op == Op::Neg;
        each(
            a.t, b.t,
            [&](NodeId ad, NodeId bd) { return ng ? neg(ad) : (s ? sub(ad, bd) : add(ad, bd)); },
            [&](size_t p) {
              return ng ? neg(at(a.h, p))
                        : (s ? sub(at(a.h, p), at(b.h, p)) : add(at(a.h, p), at(b.h, p)));
            },
            !a.t.empty() || !b.t.empty());
        break;
      }
      case Op::Select: {
        each(
            b.t, c.t, [&](NodeId bd, NodeId cd) { return select(a.v, bd, cd); },
            [&](size_t p) { return select(a.v, at(b.h, p), at(c.h, p)); },
            !b.t.empty() || !c.t.empty());
        break;
      }
      case Op::Min:
      case Op::Max: {
        if (a.t.empty() && b.t.empty()) break;
        const NodeId cond = partial(g_->make(n.op == Op::Min ? Op::Le : Op::Ge, a.v, b.v));
        each(
            a.t, b.t, [&](NodeId ad, NodeId bd) { return select(cond, ad, bd); },
            [&](size_t p) { return select(cond, at(a.h, p), at(b.h, p)); }, true);
        break;
      }
      case Op::Abs: {
        if (a.t.empty()) break;
        const NodeId s = partial(g_->make(Op::Sign, a.v));
        each(
            a.t, empty.t, [&](NodeId ad, NodeId) { return mul(s, ad); },
            [&](size_t p) { return mul(s, at(a.h, p)); }, true);
        break;
      }
      default:
        expand_analytic(n, a, b, r);
        break;
    }
    densify(r);
    return r;
  }

  void expand_analytic(const Node& n, const Taylor& a, const Taylor& b, Taylor& r) {
    const bool binary = op_arity(n.op) == 2;
    const std::array<bool, 2> need = {!a.t.empty(), binary && !b.t.empty()};
    if (!need[0] && !need[1]) return;
    Graph* g = g_.get();
    const Expr A(g, a.v), B = binary ? Expr(g, b.v) : Expr(), V(g, r.v);
    const auto fp = first_partials<Expr>(n.op, A, B, V, need);
    const NodeId fa = need[0] ? partial(fp[0].id()) : kNoNode;
    const NodeId fb = need[1] ? partial(fp[1].id()) : kNoNode;
    r.t.present = nd_ > 0;
    for_union(a.t, b.t, [&](int32_t d, NodeId ad, NodeId bd) {
      const NodeId id = add(mul(fa, ad), mul(fb, bd));
      if (id != kNoNode) r.t.nz.emplace_back(d, id);
    });
    if (np_ == 0) return;
    const auto sp = second_partials<Expr>(n.op, A, B, V, fp[0], fp[1], need);
    if (sp.has_aa) partial(sp.aa.id());
    if (sp.has_ab && !sp.ab_is_one) partial(sp.ab.id());
    if (sp.has_bb) partial(sp.bb.id());
    r.h.assign(np_, kNoNode);
    for (size_t p = 0; p < np_; ++p) {
      const auto [d, e] = chunk_.pairs[p];
      NodeId sum = add(mul(fa, at(a.h, p)), mul(fb, at(b.h, p)));
      if (sp.has_aa) sum = add(sum, mul(sp.aa.id(), mul(at(a.t, d), at(a.t, e))));
      if (sp.has_ab) {
        const NodeId cross = add(mul(at(a.t, d), at(b.t, e)), mul(at(b.t, d), at(a.t, e)));
        sum = add(sum, sp.ab_is_one ? cross : mul(sp.ab.id(), cross));
      }
      if (sp.has_bb) sum = add(sum, mul(sp.bb.id(), mul(at(b.t, d), at(b.t, e))));
      r.h[p] = sum;
    }
  }

  const Kernel& kernel_;
  const JacobianPattern* sparse_;
  const TapePattern* tapes_;  // null: tapes are taken straight through
  const Chunk& chunk_;
  const bool prune_;
  // Directions: the chunk's (nreal_), then one per cut node (ncut_), nd_ in all.
  const size_t nreal_, ncut_, nd_, np_;
  static constexpr NodeId kUnset = kNoNode - 1;
  std::vector<Tangent> cut_operand_;  // per cut: its operand's tangent
  std::vector<NodeId> cut_total_;     // per (cut, chunk direction), memoised
  std::unique_ptr<Graph> g_;
  std::vector<Taylor> nodes_;
  std::vector<NodeId> partials_;
  NodeId id_ = kNoNode;             // the kernel graph node being expanded
  std::vector<int> direction_of_;   // per input: its (first) direction in the chunk, or -1
  std::vector<int> cut_direction_;  // per kernel graph node: its cut index, when it has one
};

}  // namespace

ScalarProgram expand_derivatives(const Kernel& kernel, const DerivativePlan& plan, int chunk,
                                 bool prune, const JacobianPattern* sparse,
                                 const TapePattern* tapes) {
  if (chunk < 0 || static_cast<size_t>(chunk) >= plan.chunks.size()) {
    throw std::out_of_range("kernel '" + kernel.name() + "': chunk " + std::to_string(chunk) +
                            " of a plan with " + std::to_string(plan.chunks.size()));
  }
  if (sparse && plan.mode != Mode::Jacobian) {
    throw std::invalid_argument("kernel '" + kernel.name() + "': a sparse Jacobian in mode " +
                                std::string(mode_name(plan.mode)));
  }
  Expander e(kernel, plan, plan.chunks[chunk], prune, sparse, tapes);
  return e.run(plan);
}

}  // namespace dualjit::jit
