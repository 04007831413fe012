#include "dsl/op.h"

#include <array>

namespace dualjit {
namespace {

constexpr std::array<OpInfo, kOpCount> kOps = {{
    {"const", "", 0, false, OpClass::Leaf},
    {"input", "", 0, false, OpClass::Leaf},
    {"param", "", 0, false, OpClass::Leaf},
    {"uniform", "", 0, false, OpClass::Leaf},
    {"add", "+", 2, true, OpClass::Linear},
    {"sub", "-", 2, false, OpClass::Linear},
    {"mul", "*", 2, true, OpClass::Analytic},
    {"div", "/", 2, false, OpClass::Analytic},
    {"neg", "-", 1, false, OpClass::Linear},
    {"sqrt", "sqrt", 1, false, OpClass::Analytic},
    {"cbrt", "cbrt", 1, false, OpClass::Analytic},
    {"exp", "exp", 1, false, OpClass::Analytic},
    {"log", "log", 1, false, OpClass::Analytic},
    {"log10", "log10", 1, false, OpClass::Analytic},
    {"sin", "sin", 1, false, OpClass::Analytic},
    {"cos", "cos", 1, false, OpClass::Analytic},
    {"tan", "tan", 1, false, OpClass::Analytic},
    {"atan", "atan", 1, false, OpClass::Analytic},
    {"tanh", "tanh", 1, false, OpClass::Analytic},
    {"sinh", "sinh", 1, false, OpClass::Analytic},
    {"cosh", "cosh", 1, false, OpClass::Analytic},
    {"pow", "pow", 2, false, OpClass::Analytic},
    {"atan2", "atan2", 2, false, OpClass::Analytic},
    {"abs", "fabs", 1, false, OpClass::Piecewise},
    {"sign", "", 1, false, OpClass::Piecewise},
    {"min", "fmin", 2, false, OpClass::Selection},
    {"max", "fmax", 2, false, OpClass::Selection},
    {"lt", "<", 2, false, OpClass::Comparison},
    {"le", "<=", 2, false, OpClass::Comparison},
    {"gt", ">", 2, false, OpClass::Comparison},
    {"ge", ">=", 2, false, OpClass::Comparison},
    {"eq", "==", 2, true, OpClass::Comparison},
    {"ne", "!=", 2, true, OpClass::Comparison},
    {"select", "", 3, false, OpClass::Selection},
    {"cut", "", 1, false, OpClass::Linear},
    {"tape", "", 1, false, OpClass::Linear},
}};

}  // namespace

const OpInfo& op_info(Op op) {
  return kOps[static_cast<size_t>(op)];
}

bool is_leaf(Op op) {
  return op_info(op).cls == OpClass::Leaf;
}

bool has_zero_derivative(Op op) {
  return op_info(op).cls == OpClass::Comparison || op == Op::Sign;
}

}  // namespace dualjit
