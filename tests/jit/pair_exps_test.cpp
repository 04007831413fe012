// Exps two at a time (jit/pair_exps.h): the order moves only readers of a waiting exp, never
// pairs an exp with one that reads it, and emission writes one dj_exp2 call per pair where
// specials are out of line, with the values and stores of the unpaired program.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <regex>

#include "jit/emit_element.h"
#include "jit/pair_exps.h"
#include "jit/scalar_program.h"
#include "support/matches.h"

using namespace dualjit;
using namespace dualjit::jit;

namespace {

// Where each node sits in the order.
size_t at(const ScalarProgram& p, NodeId id) {
  return static_cast<size_t>(std::find(p.order.begin(), p.order.end(), id) - p.order.begin());
}

}  // namespace

TEST_CASE("an exp waits for the next independent one; its readers move after the pair") {
  ScalarProgram p;
  p.graph = std::make_unique<Graph>("pairs");
  Graph& g = *p.graph;
  const NodeId x = g.leaf(Op::Input, kPrimalSlot, 0), y = g.leaf(Op::Input, kPrimalSlot, 1);
  const NodeId a = g.make(Op::Exp, x);
  const NodeId b = g.make(Op::Mul, a, y);  // reads a
  const NodeId s = g.make(Op::Add, x, y);  // independent of a
  const NodeId c = g.make(Op::Exp, s);     // pairs with a
  const NodeId d = g.make(Op::Exp, b);     // reads a through b: never paired with a
  const NodeId e = g.make(Op::Add, c, d);
  p.order = {x, y, a, b, s, c, d, e};
  p.stores = {{Target::Value, 0, e}, {Target::Value, 1, b}};
  pair_exps(p);
  CHECK(p.paired_exps);
  REQUIRE(p.order.size() == 8);
  CHECK(at(p, c) == at(p, a) + 1);  // the pair, adjacent
  CHECK(at(p, b) > at(p, c));       // a's reader after the pair
  CHECK(at(p, s) < at(p, a));       // c's operand before it
  CHECK(exp_pair(g, a, c));
  CHECK_FALSE(exp_pair(g, b, d));  // not an exp
  const NodeId f = g.make(Op::Exp, a);
  CHECK_FALSE(exp_pair(g, a, f));  // reads a
  // Every operand still comes before its reader.
  for (size_t i = 0; i < p.order.size(); ++i) {
    const Node& n = g.node(p.order[i]);
    for (int k = 0; k < op_arity(n.op); ++k) CHECK(at(p, n.operand(k)) < i);
  }

  const std::string outlined = emit_element_function(p, "f", 0, false, false, true);
  CHECK(test::count_matches(outlined, std::regex(R"(const dj_d2 e\d+ = dj_exp2\(t\d+, t\d+\);)")) ==
        1);
  CHECK(test::count_matches(outlined, std::regex(R"(dj_exp\(t\d+\))")) == 1);  // d, alone
  // Inline specials: no pairs.
  const std::string inlined = emit_element_function(p, "f", 0, false, false, false);
  CHECK(inlined.find("dj_exp2") == std::string::npos);
  CHECK(test::count_matches(inlined, std::regex(R"(= exp\(t\d+\);)")) == 3);
  // Split into functions of two statements: a pair never straddles two of them.
  const std::string split = emit_element_function(p, "f", 2, false, false, true);
  CHECK(test::count_matches(split, std::regex(R"(dj_exp2)")) <= 1);
  CHECK(test::count_matches(split, std::regex(R"(val\[\d+\] = t\d+;)")) == 2);
}

TEST_CASE("an exp whose readers pass the window is called alone") {
  ScalarProgram p;
  p.graph = std::make_unique<Graph>("window");
  Graph& g = *p.graph;
  const NodeId x = g.leaf(Op::Input, kPrimalSlot, 0);
  const NodeId a = g.make(Op::Exp, x);
  p.order = {x, a};
  NodeId last = a;
  for (int i = 0; i < 5; ++i) {
    last = g.make(Op::Mul, last, g.constant(1.5 + i));
    p.order.push_back(last);
  }
  const NodeId y = g.leaf(Op::Input, kPrimalSlot, 1);
  const NodeId c = g.make(Op::Exp, y);
  p.order.push_back(y);
  p.order.push_back(c);
  const NodeId sum = g.make(Op::Add, last, c);
  p.order.push_back(sum);
  p.stores = {{Target::Value, 0, sum}};
  const std::vector<NodeId> before = p.order;
  pair_exps(p, 3);  // 5 readers wait: more than the window
  CHECK(p.order == before);
  pair_exps(p, 10);
  CHECK(at(p, c) == at(p, a) + 1);
}
