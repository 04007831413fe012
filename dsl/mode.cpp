#include "dsl/mode.h"

#include <stdexcept>

namespace dualjit {

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::Value:
      return "value";
    case Mode::Jacobian:
      return "jacobian";
    case Mode::Gradient:
      return "gradient";
    case Mode::Hessian:
      return "hessian";
    case Mode::Hvp:
      return "hvp";
  }
  return "?";
}

Mode parse_mode(std::string_view name) {
  for (Mode m : {Mode::Value, Mode::Jacobian, Mode::Gradient, Mode::Hessian, Mode::Hvp}) {
    if (mode_name(m) == name) return m;
  }
  throw std::invalid_argument("unknown mode '" + std::string(name) +
                              "' (value, jacobian, gradient, hessian, hvp)");
}

bool mode_needs_scalar_output(Mode mode) {
  return mode == Mode::Gradient || mode == Mode::Hessian || mode == Mode::Hvp;
}

bool mode_is_second_order(Mode mode) {
  return mode == Mode::Hessian || mode == Mode::Hvp;
}

size_t first_size(Mode mode, int n_in, int n_out) {
  return mode == Mode::Value ? 0 : static_cast<size_t>(n_out) * n_in;
}

size_t second_size(Mode mode, int n_in) {
  if (mode == Mode::Hessian) return static_cast<size_t>(n_in) * (n_in + 1) / 2;
  if (mode == Mode::Hvp) return static_cast<size_t>(n_in);
  return 0;
}

}  // namespace dualjit
