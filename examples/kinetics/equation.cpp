#include "examples/kinetics/equation.h"

#include <charconv>
#include <sstream>
#include <stdexcept>

namespace dualjit::kinetics {
namespace {

bool is_arrow(const std::string& t) {
  return t == "<=>" || t == "=>" || t == "=";
}

bool parse_number(const std::string& t, double& value) {
  const char* end = t.data() + t.size();
  auto [ptr, ec] = std::from_chars(t.data(), end, value);
  return ec == std::errc() && ptr == end;
}

void add(Stoichiometry& side, const std::string& name, double coeff) {
  for (auto& [n, c] : side) {
    if (n == name) {
      c += coeff;
      return;
    }
  }
  side.emplace_back(name, coeff);
}

struct Side {
  Stoichiometry species;
  bool third_body = false;
  std::string falloff_collider;
};

// One side as tokens: terms separated by "+", each "[coefficient] name", or "M", or "(+X)".
Side parse_side(const std::vector<std::string>& tokens) {
  Side side;
  if (tokens.empty()) throw std::invalid_argument("an empty side");
  bool expect_term = true;
  double coeff = 1.0;
  bool have_coeff = false;
  for (const auto& t : tokens) {
    if (t.size() > 3 && t.rfind("(+", 0) == 0 && t.back() == ')') {
      // Falloff collider: a term on its own, not joined by "+".
      if (!side.falloff_collider.empty()) throw std::invalid_argument("two '(+M)' on one side");
      if (have_coeff) throw std::invalid_argument("a coefficient before '" + t + "'");
      side.falloff_collider = t.substr(2, t.size() - 3);
      continue;
    }
    if (t == "+") {
      if (expect_term) throw std::invalid_argument("'+' where a species was expected");
      expect_term = true;
      continue;
    }
    if (!expect_term) throw std::invalid_argument("'" + t + "' where '+' was expected");
    double value = 0;
    if (!have_coeff && parse_number(t, value)) {
      if (!(value > 0)) throw std::invalid_argument("a non-positive coefficient '" + t + "'");
      coeff = value;
      have_coeff = true;
      continue;
    }
    if (t == "M") {
      if (have_coeff) throw std::invalid_argument("a coefficient before 'M'");
      if (side.third_body) throw std::invalid_argument("two 'M' on one side");
      side.third_body = true;
    } else {
      add(side.species, t, coeff);
    }
    coeff = 1.0;
    have_coeff = false;
    expect_term = false;
  }
  if (expect_term || have_coeff) throw std::invalid_argument("a side ending in '+' or a number");
  return side;
}

}  // namespace

Equation parse_equation(const std::string& text) {
  // "(+ M)" is the same as "(+M)"; make it one token.
  std::string normalized;
  for (size_t i = 0; i < text.size(); ++i) {
    normalized += text[i];
    if (text[i] == '(' && i + 1 < text.size() && text[i + 1] == '+') {
      normalized += '+';
      ++i;
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
    }
  }
  std::istringstream in(normalized);
  std::vector<std::string> left, right;
  std::string token, arrow;
  while (in >> token) {
    if (is_arrow(token)) {
      if (!arrow.empty()) throw std::invalid_argument("two arrows");
      arrow = token;
    } else {
      (arrow.empty() ? left : right).push_back(token);
    }
  }
  if (arrow.empty()) throw std::invalid_argument("no '<=>', '=>' or '='");
  Side lhs = parse_side(left), rhs = parse_side(right);
  if (lhs.third_body != rhs.third_body) throw std::invalid_argument("'+ M' on one side only");
  if (lhs.falloff_collider != rhs.falloff_collider)
    throw std::invalid_argument("different '(+M)' colliders on the two sides");
  if (lhs.species.empty() || rhs.species.empty())
    throw std::invalid_argument("a side without species");
  Equation eq;
  eq.reactants = std::move(lhs.species);
  eq.products = std::move(rhs.species);
  eq.reversible = arrow != "=>";
  eq.third_body = lhs.third_body;
  eq.falloff_collider = lhs.falloff_collider;
  return eq;
}

}  // namespace dualjit::kinetics
