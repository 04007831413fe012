#include "jit/emit_element.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "jit/constant_tables.h"
#include "jit/pair_exps.h"

namespace dualjit::jit {

std::string c_literal(double value) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // keep it a double
  return value < 0 ? "(" + s + ")" : s;
}

namespace {

void append_int(std::string& out, long long v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// c_expression's text appended to `out`: emission writes a few megabytes for a chemistry
// kernel, a statement at a time, without a temporary string per operand.
void append_expression(std::string& out, Op op, std::string_view a, std::string_view b,
                       std::string_view c, bool outline = false) {
  const OpInfo& info = op_info(op);
  auto put = [&](std::initializer_list<std::string_view> parts) {
    for (std::string_view part : parts) out += part;
  };
  switch (op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
      return put({a, " ", info.c_name, " ", b});
    case Op::Neg:
      return put({"-", a});
    case Op::Cut:
    case Op::Tape:
      return put({a});
    case Op::Sign:
      return put({"(double)((", a, " > 0.0) - (", a, " < 0.0))"});
    // min and max return their first argument on ties, as the reference does.
    case Op::Min:
      return put({"(", a, " <= ", b, " ? ", a, " : ", b, ")"});
    case Op::Max:
      return put({"(", a, " >= ", b, " ? ", a, " : ", b, ")"});
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Eq:
    case Op::Ne:
      return put({"(", a, " ", info.c_name, " ", b, " ? 1.0 : 0.0)"});
    case Op::Select:
      return put({"(", a, " != 0.0 ? ", b, " : ", c, ")"});
    default:
      break;
  }
  if (info.cls == OpClass::Leaf) throw std::logic_error("c_expression of a leaf");
  const std::string_view prefix = outline && is_outlined_special(op) ? "dj_" : "";
  if (info.arity == 1) return put({prefix, info.c_name, "(", a, ")"});
  put({prefix, info.c_name, "(", a, ", ", b, ")"});
}

}  // namespace

bool is_outlined_special(Op op) {
  switch (op) {
    case Op::Cbrt:
    case Op::Exp:
    case Op::Log:
    case Op::Log10:
    case Op::Sin:
    case Op::Cos:
    case Op::Tan:
    case Op::Atan:
    case Op::Tanh:
    case Op::Sinh:
    case Op::Cosh:
    case Op::Pow:
    case Op::Atan2:
      return true;
    default:
      return false;
  }
}

std::string c_expression(Op op, const std::string& a, const std::string& b, const std::string& c) {
  std::string out;
  append_expression(out, op, a, b, c);
  return out;
}

std::string c_literal_float(double value) {
  if (!std::isfinite(value)) return "(float)" + c_literal(value);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", value);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  s += 'f';
  return value < 0 ? "(" + s + ")" : s;
}

namespace {

// Comparisons whose every reader is a select's condition are emitted as C booleans that the
// select tests directly; others (stored, or used as numbers) keep the 1.0 / 0.0 value.
std::vector<uint8_t> predicate_marks(const ScalarProgram& p) {
  const Graph& g = *p.graph;
  std::vector<uint8_t> pred(g.size(), 0);
  for (NodeId id : p.order) {
    pred[id] = op_info(g.node(id).op).cls == OpClass::Comparison;
  }
  for (NodeId id : p.order) {
    const Node& n = g.node(id);
    for (int k = 0; k < op_arity(n.op); ++k) {
      if (!(n.op == Op::Select && k == 0)) pred[n.operand(k)] = 0;
    }
  }
  for (const Store& st : p.stores) pred[st.node] = 0;
  return pred;
}

// The C type of each value. Under single tangents the derivative arithmetic is float, and
// so is every primal value that only derivative arithmetic reads (the partials such as 1/x:
// computed in double, rounded once), because those, live across all directions of a chunk,
// hold most of the registers. Values the primal or the value outputs read stay double.
class Typing {
 public:
  Typing(const ScalarProgram& p, bool single_tangents) : predicate_(predicate_marks(p)) {
    if (!single_tangents || p.primal.empty()) return;
    const Graph& g = *p.graph;
    const size_t n = g.size();
    float_.assign(n, 0);
    primal_ = p.primal;
    std::vector<uint8_t> emitted(n, 0), read(n, 0), read_by_double(n, 0);
    for (NodeId id : p.order) emitted[id] = 1;
    for (const Store& st : p.stores) {
      if (st.target == Target::Value) read_by_double[st.node] = 1;
    }
    // Users have larger ids than their operands: decide users first.
    for (size_t i = n; i-- > 0;) {
      if (!emitted[i]) continue;
      const Node& nd = g.node(static_cast<NodeId>(i));
      const bool computed = !(nd.op == Op::Const || is_leaf(nd.op));
      const bool f = computed && (!primal_[i] || (read[i] && !read_by_double[i]));
      float_[i] = f && !predicate_[i];
      for (int k = 0; k < op_arity(nd.op); ++k) {
        read[nd.operand(k)] = 1;
        if (!f) read_by_double[nd.operand(k)] = 1;
      }
    }
  }
  bool is_float(NodeId id) const { return !float_.empty() && float_[static_cast<size_t>(id)]; }
  // Float arithmetic (operands converted); a float primal value is computed in double.
  bool float_arithmetic(NodeId id) const {
    return is_float(id) && !primal_[static_cast<size_t>(id)];
  }
  bool is_predicate(NodeId id) const { return predicate_[static_cast<size_t>(id)] != 0; }
  const char* type(NodeId id) const {
    return is_predicate(id) ? "bool" : (is_float(id) ? "float" : "double");
  }

 private:
  std::vector<uint8_t> predicate_, float_, primal_;
};

const char* store_array(Target t) {
  return t == Target::Value ? "val" : t == Target::First ? "d1" : t == Target::Second ? "d2" : "tp";
}

void append_leaf(std::string& out, const Node& n, const ElementIndex& ix) {
  switch (n.op) {
    case Op::Input:
      if (n.slot == kTapeSlot) {  // tiles: a warp's load of a slot is one line
        out += "tp[";
        append_int(out, int64_t{n.index} * kTapeTile);
        out += ']';
        return;
      }
      out += n.slot == kDirectionSlot ? "v[" : "x[";
      break;
    case Op::Param:
      if (!ix.param_at.empty()) {  // tiles, read where used: a warp's read is one line
        out += "p[";
        append_int(out, ix.param_at.at(static_cast<size_t>(n.index)) * kTapeTile);
        out += ']';
        return;
      }
      out += "p[";
      break;
    case Op::Uniform:
      out += "u[";
      break;
    default:
      return;
  }
  append_int(out, n.index);
  out += ']';
}

constexpr const char* kParams =
    "const double* __restrict__ x, const double* __restrict__ v,\n"
    "    const double* __restrict__ p, const double* __restrict__ u,\n"
    "    double* __restrict__ val, double* __restrict__ d1, double* __restrict__ d2";
// The tape's pointer (jit/tape_pattern.h), in the functions of kernels that keep tapes.
constexpr const char* kTapeParam = ", double* __restrict__ tp";

std::string params(bool tape) {
  return tape ? std::string(kParams) + kTapeParam : std::string(kParams);
}

// How values are spelled: a constant as its literal or its table entry (made once per node),
// any other value as t<id>. The view lives until the next call.
class Names {
 public:
  Names(const Graph& g, ConstantTables* tables) : g_(g), literal_(g.size()), tables_(tables) {}
  std::string_view operator()(NodeId id) {
    const Node& n = g_.node(id);
    if (n.op == Op::Const) {
      std::string& lit = literal_[static_cast<size_t>(id)];
      if (lit.empty() && !(tables_ && tables_->value(n.value, lit))) lit = c_literal(n.value);
      return lit;
    }
    scratch_ = "t";
    append_int(scratch_, id);
    return scratch_;
  }
  ConstantTables* tables() const { return tables_; }

 private:
  const Graph& g_;
  std::vector<std::string> literal_;
  ConstantTables* tables_;
  std::string scratch_;
};

void append_value_name(std::string& out, NodeId id) {
  out += 't';
  append_int(out, id);
}

// The statement defining `id` (constants are inlined by the caller), its right-hand side
// appended to `out`. A float statement reads constants as float literals and primal values
// through a conversion, so its arithmetic stays in float; a select's condition is read as it
// is, and tested directly when it is a predicate.
void append_definition(std::string& out, const Graph& g, NodeId id, Names& name, const Typing& ty,
                       bool outline, const ElementIndex& ix) {
  const Node& n = g.node(id);
  if (is_leaf(n.op)) return append_leaf(out, n, ix);
  const bool in_float = ty.float_arithmetic(id);
  std::string args[3];
  auto arg = [&](NodeId a, int k) -> std::string_view {
    if (a == kNoNode) return {};
    if (!in_float || (n.op == Op::Select && k == 0) || ty.is_float(a)) {
      args[k] = name(a);
      return args[k];
    }
    const Node& an = g.node(a);
    if (an.op == Op::Const) {
      args[k] = c_literal_float(an.value);
    } else {
      args[k] = "(float)";
      args[k] += name(a);
    }
    return args[k];
  };
  if (ty.is_predicate(id)) {
    const std::string_view a = arg(n.a, 0), b = arg(n.b, 1);
    out += a;
    out += ' ';
    out += op_info(n.op).c_name;
    out += ' ';
    out += b;
    return;
  }
  if (n.op == Op::Select && !in_float && name.tables() && g.node(n.b).op == Op::Const &&
      g.node(n.c).op == Op::Const) {
    std::string condition(name(n.a));
    if (!ty.is_predicate(n.a)) condition += " != 0.0";
    if (name.tables()->select(condition, g.node(n.b).value, g.node(n.c).value, out)) return;
  }
  if (n.op == Op::Select && ty.is_predicate(n.a)) {
    const std::string_view c = arg(n.a, 0), a = arg(n.b, 1), b = arg(n.c, 2);
    out += '(';
    out += c;
    out += " ? ";
    out += a;
    out += " : ";
    out += b;
    out += ')';
    return;
  }
  const std::string_view a = arg(n.a, 0), b = arg(n.b, 1), c = arg(n.c, 2);
  const bool outlined = outline && !in_float;
  if (outlined && n.op == Op::Div && g.node(n.a).op == Op::Const && g.node(n.a).value == 1.0) {
    out += "dj_rcp(";  // driver_text.h: CUDA's division without its branch
    out += b;
    out += ')';
    return;
  }
  append_expression(out, n.op, a, b, c, outlined);
}

// `  const double t42 = `: the head of the statement that defines or loads a value.
void append_declaration(std::string& out, NodeId id, const Typing& ty) {
  out += "  const ";
  out += ty.type(id);
  out += ' ';
  append_value_name(out, id);
  out += " = ";
}

// `  const double t42 = <definition>;`
void append_statement(std::string& out, const Graph& g, NodeId id, Names& name, const Typing& ty,
                      bool outline, const ElementIndex& ix) {
  append_declaration(out, id, ty);
  append_definition(out, g, id, name, ty, outline, ix);
  out += ";\n";
}

// Whether `a` and `b`, adjacent in p's order, are emitted as one call of dj_exp2: the program
// pairs exps (jit/pair_exps.h), its specials are out of line and both are double.
bool emits_pair(const ScalarProgram& p, const Typing& ty, bool outline, NodeId a, NodeId b) {
  return p.paired_exps && outline && exp_pair(*p.graph, a, b) && !ty.float_arithmetic(a) &&
         !ty.float_arithmetic(b);
}

// `  const dj_d2 e42 = dj_exp2(t40, t41);`, then t42 and t43 from it.
void append_exp_pair(std::string& out, const Graph& g, NodeId a, NodeId b, Names& name,
                     const Typing& ty) {
  const std::string x(name(g.node(a).a)), y(name(g.node(b).a));
  out += "  const dj_d2 e";
  append_int(out, a);
  out += " = dj_exp2(" + x + ", " + y + ");\n";
  append_declaration(out, a, ty);
  out += 'e';
  append_int(out, a);
  out += ".x;\n";
  append_declaration(out, b, ty);
  out += 'e';
  append_int(out, a);
  out += ".y;\n";
}

// One output store statement: `val[3] = t42;` (first derivatives where `first` says).
void append_store(std::string& out, const Store& st, std::string_view value,
                  const ElementIndex& first) {
  out += "  ";
  out += store_array(st.target);
  out += '[';
  if (st.target == Target::Tape) {
    append_int(out, int64_t{st.index} * kTapeTile);
  } else if (st.target == Target::Value) {
    append_int(out, int64_t{st.index} * first.value_stride);
  } else if (st.target != Target::First) {
    append_int(out, st.index);
  } else {
    const int64_t k = static_cast<int64_t>(st.index) - first.base;
    if (k < 0) throw std::logic_error("emit_element_function: d1 store below its stage");
    if (first.staged) {
      append_int(out, k * 32);
      out += " + (dj_lane() ^ ";
      append_int(out, k % 32);
      out += ')';
    } else {
      append_int(out, k * first.stride);
    }
  }
  out += "] = ";
  out += value;
  out += ";\n";
}

// Indices into p.stores per node, in output order.
std::vector<std::vector<size_t>> stores_by_node(const ScalarProgram& p) {
  std::vector<std::vector<size_t>> out(p.graph->size());
  for (size_t i = 0; i < p.stores.size(); ++i) out[p.stores[i].node].push_back(i);
  return out;
}

// About the bytes emitted per statement, so that the text grows without copies.
constexpr size_t kStatementBytes = 48;

std::string emit_whole(const ScalarProgram& p, const std::string& fn_name, const Typing& ty,
                       bool own_function, bool outline, const ElementIndex& first, bool tape,
                       ConstantTables* tables) {
  const Graph& g = *p.graph;
  Names name(g, tables);
  std::string os;
  os.reserve(kStatementBytes * (p.order.size() + p.stores.size()) + 512);
  os += own_function ? "DJ_NOINLINE void " : "DJ_FN void ";
  os += fn_name;
  os += '(';
  os += params(tape);
  os += ") {\n  (void)x; (void)v; (void)p; (void)u; (void)val; (void)d1; (void)d2;";
  os += tape ? " (void)tp;\n" : "\n";
  const auto stores_of = stores_by_node(p);
  std::vector<uint8_t> stored(p.stores.size(), 0);
  for (size_t i = 0; i < p.order.size(); ++i) {
    const NodeId id = p.order[i];
    const bool pair = i + 1 < p.order.size() && emits_pair(p, ty, outline, id, p.order[i + 1]);
    if (pair) {
      append_exp_pair(os, g, id, p.order[i + 1], name, ty);
    } else if (g.node(id).op != Op::Const) {
      append_statement(os, g, id, name, ty, outline, first);
    }
    // Each output is stored as soon as it exists, so it holds no register until the end.
    for (NodeId made : {id, pair ? p.order[i + 1] : kNoNode}) {
      if (made == kNoNode) continue;
      for (size_t si : stores_of[made]) {
        append_store(os, p.stores[si], name(made), first);
        stored[si] = 1;
      }
    }
    i += pair;
  }
  for (size_t si = 0; si < p.stores.size(); ++si) {
    if (stored[si]) continue;
    const Store& st = p.stores[si];
    throw std::logic_error("emit_element_function: " + fn_name + ": output " +
                           std::string(store_array(st.target)) + "[" + std::to_string(st.index) +
                           "] is not scheduled");
  }
  os += "}\n";
  return os;
}

std::string emit_split(const ScalarProgram& p, const std::string& fn_name, size_t max_statements,
                       const Typing& ty, bool outline, const ElementIndex& first, bool tape,
                       ConstantTables* tables) {
  const Graph& g = *p.graph;
  const size_t n = g.size();
  // Segment of each computed (non-constant, non-leaf) node, in schedule order.
  std::vector<int> seg(n, -1);
  int n_seg = 0;
  size_t in_seg = 0;
  for (NodeId id : p.order) {
    const Node& nd = g.node(id);
    if (nd.op == Op::Const || is_leaf(nd.op)) continue;
    if (in_seg == max_statements) ++n_seg, in_seg = 0;
    seg[id] = n_seg;
    ++in_seg;
  }
  ++n_seg;
  // Last segment that reads each node; stores count as reads in the defining segment.
  std::vector<int> last_use(n, -1);
  for (NodeId id : p.order) {
    const Node& nd = g.node(id);
    if (seg[id] < 0) continue;
    for (int k = 0; k < op_arity(nd.op); ++k) {
      last_use[nd.operand(k)] = std::max(last_use[nd.operand(k)], seg[id]);
    }
  }
  // Scratch slots: a value defined in segment a and read later lives in a slot from its
  // definition to the end of its last reader; slots free before a segment starts are reused.
  std::vector<int> slot(n, -1);
  std::vector<std::vector<NodeId>> dies_after(n_seg);
  std::vector<int> free_slots;
  int n_slots = 0;
  std::vector<std::vector<NodeId>> seg_nodes(n_seg);
  for (NodeId id : p.order) {
    if (seg[id] >= 0) seg_nodes[seg[id]].push_back(id);
  }
  for (int s = 0; s < n_seg; ++s) {
    if (s > 0) {
      for (NodeId dead : dies_after[s - 1]) free_slots.push_back(slot[dead]);
    }
    for (NodeId id : seg_nodes[s]) {
      if (last_use[id] <= s) continue;
      if (free_slots.empty()) {
        slot[id] = n_slots++;
      } else {
        slot[id] = free_slots.back();
        free_slots.pop_back();
      }
      dies_after[last_use[id]].push_back(id);
    }
  }
  std::string os;
  os.reserve(2 * kStatementBytes * (p.order.size() + p.stores.size()) + 512);
  Names name(g, tables);
  const auto stores_of = stores_by_node(p);
  auto segment_name = [&](int s) {
    os += fn_name;
    os += "_s";
    append_int(os, s);
  };
  // Defined or loaded in the current segment; `touched` lists the marks to clear after it.
  std::vector<uint8_t> local(n, 0);
  std::vector<NodeId> touched;
  for (int s = 0; s < n_seg; ++s) {
    os += "DJ_NOINLINE void ";
    segment_name(s);
    os += '(';
    os += params(tape);
    os += ", double* __restrict__ s) {\n";
    os += "  (void)x; (void)v; (void)p; (void)u; (void)val; (void)d1; (void)d2; (void)s;";
    os += tape ? " (void)tp;\n" : "\n";
    for (NodeId id : touched) local[id] = 0;
    touched.clear();
    auto ensure = [&](NodeId a) {
      if (a == kNoNode || local[a]) return;
      const Node& an = g.node(a);
      local[a] = 1;
      touched.push_back(a);
      if (an.op == Op::Const) return;
      append_declaration(os, a, ty);
      if (is_leaf(an.op)) {
        append_leaf(os, an, first);
      } else {
        os += "s[";
        append_int(os, slot[a]);
        os += ']';
      }
      os += ";\n";
    };
    const std::vector<NodeId>& sn = seg_nodes[s];
    for (size_t i = 0; i < sn.size(); ++i) {
      const NodeId id = sn[i];
      const bool pair = i + 1 < sn.size() && emits_pair(p, ty, outline, id, sn[i + 1]);
      const NodeId made[2] = {id, pair ? sn[i + 1] : kNoNode};
      for (NodeId m : made) {
        if (m == kNoNode) continue;
        const Node& nd = g.node(m);
        for (int k = 0; k < op_arity(nd.op); ++k) ensure(nd.operand(k));
      }
      if (pair)
        append_exp_pair(os, g, id, sn[i + 1], name, ty);
      else
        append_statement(os, g, id, name, ty, outline, first);
      for (NodeId m : made) {
        if (m == kNoNode) continue;
        local[m] = 1;
        touched.push_back(m);
        if (slot[m] >= 0) {
          os += "  s[";
          append_int(os, slot[m]);
          os += "] = ";
          append_value_name(os, m);
          os += ";\n";
        }
        for (size_t si : stores_of[m]) append_store(os, p.stores[si], name(m), first);
      }
      i += pair;
    }
    if (s == n_seg - 1) {  // outputs that are constants or inputs
      for (const Store& st : p.stores) {
        if (seg[st.node] >= 0) continue;
        ensure(st.node);
        append_store(os, st, name(st.node), first);
      }
    }
    os += "}\n";
  }
  os += "DJ_FN void ";
  os += fn_name;
  os += '(';
  os += params(tape);
  os += ") {\n  double s[";
  append_int(os, std::max(n_slots, 1));
  os += "];\n";
  for (int s = 0; s < n_seg; ++s) {
    os += "  ";
    segment_name(s);
    os += tape ? "(x, v, p, u, val, d1, d2, tp, s);\n" : "(x, v, p, u, val, d1, d2, s);\n";
  }
  os += "}\n";
  return os;
}

}  // namespace

std::string emit_element_function(const ScalarProgram& p, const std::string& fn_name,
                                  size_t max_statements, bool single_tangents, bool own_function,
                                  bool outline_specials, ElementIndex first, bool tape,
                                  size_t constant_table_bytes) {
  const Typing ty(p, single_tangents);
  size_t statements = 0;
  for (NodeId id : p.order) {
    const Op op = p.graph->node(id).op;
    statements += !(op == Op::Const || is_leaf(op));
  }
  std::optional<ConstantTables> tables;
  if (constant_table_bytes > 0) tables.emplace(fn_name, constant_table_bytes);
  ConstantTables* t = tables ? &*tables : nullptr;
  std::string text =
      max_statements == 0 || statements <= max_statements
          ? emit_whole(p, fn_name, ty, own_function, outline_specials, first, tape, t)
          : emit_split(p, fn_name, max_statements, ty, outline_specials, first, tape, t);
  if (!tables) return text;
  return tables->declarations() + text;
}

}  // namespace dualjit::jit
