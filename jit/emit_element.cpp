#include "jit/emit_element.h"

#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace dualjit::jit {

std::string c_literal(double value) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // keep it a double
  return value < 0 ? "(" + s + ")" : s;
}

std::string c_expression(Op op, const std::string& a, const std::string& b, const std::string& c) {
  const OpInfo& info = op_info(op);
  switch (op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
      return a + " " + std::string(info.c_name) + " " + b;
    case Op::Neg:
      return "-" + a;
    case Op::Sign:
      return "(double)((" + a + " > 0.0) - (" + a + " < 0.0))";
    // min and max return their first argument on ties, as the reference does.
    case Op::Min:
      return "(" + a + " <= " + b + " ? " + a + " : " + b + ")";
    case Op::Max:
      return "(" + a + " >= " + b + " ? " + a + " : " + b + ")";
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Eq:
    case Op::Ne:
      return "(" + a + " " + std::string(info.c_name) + " " + b + " ? 1.0 : 0.0)";
    case Op::Select:
      return "(" + a + " != 0.0 ? " + b + " : " + c + ")";
    default:
      break;
  }
  if (info.cls == OpClass::Leaf) throw std::logic_error("c_expression of a leaf");
  if (info.arity == 1) return std::string(info.c_name) + "(" + a + ")";
  return std::string(info.c_name) + "(" + a + ", " + b + ")";
}

std::string emit_element_function(const ScalarProgram& p, const std::string& fn_name) {
  const Graph& g = *p.graph;
  std::vector<std::string> name(g.size());
  std::ostringstream os;
  os << "DJ_FN void " << fn_name
     << "(const double* __restrict__ x, const double* __restrict__ v,\n"
        "    const double* __restrict__ p, const double* __restrict__ u,\n"
        "    double* __restrict__ val, double* __restrict__ d1, double* __restrict__ d2) {\n"
        "  (void)x; (void)v; (void)p; (void)u; (void)val; (void)d1; (void)d2;\n";
  for (NodeId id : p.order) {
    const Node& n = g.node(id);
    std::string expr;
    switch (n.op) {
      case Op::Const:
        name[id] = c_literal(n.value);
        continue;
      case Op::Input:
        expr = (n.slot == kDirectionSlot ? "v[" : "x[") + std::to_string(n.index) + "]";
        break;
      case Op::Param:
        expr = "p[" + std::to_string(n.index) + "]";
        break;
      case Op::Uniform:
        expr = "u[" + std::to_string(n.index) + "]";
        break;
      default: {
        auto arg = [&](NodeId a) { return a == kNoNode ? std::string() : name[a]; };
        expr = c_expression(n.op, arg(n.a), arg(n.b), arg(n.c));
      }
    }
    name[id] = "t" + std::to_string(id);
    os << "  const double " << name[id] << " = " << expr << ";\n";
  }
  for (const Store& s : p.stores) {
    const char* array =
        s.target == Target::Value ? "val" : (s.target == Target::First ? "d1" : "d2");
    os << "  " << array << '[' << s.index << "] = " << name[s.node] << ";\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace dualjit::jit
