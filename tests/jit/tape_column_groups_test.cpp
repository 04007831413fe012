// plan_tape_columns (jit/tape_column_groups.h): the linear outputs' entries by column groups,
// each group's tape slots staged once. That the sums are the Jacobian's:
// tests/backends/tape_columns_test.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "jit/tape_column_groups.h"
#include "support/test_kernels.h"

using namespace dualjit;
using namespace dualjit::jit;

TEST_CASE("column groups cover every linear output and input once, within their slots") {
  const Kernel k = test::tape_kernel(true);
  const TapePattern p = tape_pattern(k);
  const std::vector<TapeLinearOutput> outs = tape_linear_outputs(k, p);
  for (int limit : {1, 4, 12, 10000}) {
    CAPTURE(limit);
    const TapeColumnPlan plan = plan_tape_columns(p, outs, 6, limit);
    CHECK(plan.outputs == std::vector<int>{0, 1, 2, 3, 4, 5});  // output 6 is not linear
    REQUIRE(plan.cuts.size() == 1);                             // the density cut
    CHECK(k.graph().node(plan.cuts[0]).op == Op::Cut);
    CHECK(plan.factors.size() == 8);  // the heat-like row's weights, each over T
    std::vector<int> columns;
    for (const ColumnGroup& g : plan.groups) {
      columns.insert(columns.end(), g.columns.begin(), g.columns.end());
      CHECK((g.staged() <= size_t(limit) || g.columns.size() == 1));
      CHECK(std::set<int64_t>(g.slots.begin(), g.slots.end()).size() == g.slots.size());
      REQUIRE(g.entries.size() == g.columns.size() * plan.outputs.size());
      std::vector<int> used(g.staged(), 0);
      for (size_t i = 0; i < g.entries.size(); ++i) {
        const ColumnEntry& e = g.entries[i];
        CHECK(e.column == g.columns[i / plan.outputs.size()]);  // column-major
        CHECK(e.output == plan.outputs[i % plan.outputs.size()]);
        for (const ColumnTerm& t : e.terms) {
          REQUIRE(t.staged >= 0);
          REQUIRE(size_t(t.staged) < g.staged());
          ++used[size_t(t.staged)];
          CHECK(t.factor < int(plan.factors.size()));
        }
      }
      // Each derived component is its tape's, in a column of the group.
      for (const DerivedSlot& d : g.derived) {
        const TapeDerived& dv = p.heads[size_t(d.tape)].derived.at(size_t(d.component));
        CHECK(std::find(g.columns.begin(), g.columns.end(), dv.direction.input) !=
              g.columns.end());
      }
      CHECK(std::count(used.begin(), used.end(), 0) == 0);  // nothing staged in vain
    }
    CHECK(columns == std::vector<int>{0, 1, 2, 3, 4, 5});
    if (limit == 10000) CHECK(plan.groups.size() == 1);
    CHECK(plan.cut_group.columns == std::vector<int>{cut_column(0)});
    CHECK(plan.cut_group.entries.size() == plan.outputs.size());
  }
  // The T column reads every tape's T component: the largest, alone at a small limit.
  const TapeColumnPlan small = plan_tape_columns(p, outs, 6, 4);
  CHECK(small.groups[0].columns == std::vector<int>{0});
  CHECK(small.groups[0].slots.size() == p.tapes.size());
  // Aligned groups: none spans a multiple of group_columns; with room for every slot, each is
  // one aligned stretch.
  for (int align : {2, 4}) {
    for (int limit : {4, 10000}) {
      CAPTURE(align);
      CAPTURE(limit);
      const TapeColumnPlan aligned = plan_tape_columns(p, outs, 6, limit, align);
      std::vector<int> columns;
      for (const ColumnGroup& g : aligned.groups) {
        CHECK(g.columns.front() / align == g.columns.back() / align);
        columns.insert(columns.end(), g.columns.begin(), g.columns.end());
      }
      CHECK(columns == std::vector<int>{0, 1, 2, 3, 4, 5});
      if (limit == 10000) CHECK(aligned.groups.size() == size_t((6 + align - 1) / align));
    }
  }
  CHECK_THROWS_AS(plan_tape_columns(p, outs, 6, 4, -1), std::invalid_argument);
  CHECK_THROWS_AS(plan_tape_columns(p, outs, 6, 0), std::invalid_argument);
  CHECK_THROWS_AS(plan_tape_columns(p, outs, 3, 4), std::invalid_argument);  // inputs 3..5
}

TEST_CASE("compose_entries: a row weighting other rows by factors is their weighted sum") {
  // Two tapes of (T, a, b); rows w0 = q0 - q1 and w1 = 2 q1, and a heat-like row
  // h = f0(T) w0 + f1(T) w1 + g(T) q0 (the last a factor group no row equals).
  const Kernel k("composed_rows", [](KernelBuilder& kb) {
    auto x = kb.input("x", 3);
    const Expr q0 = tape(x[1] * x[2] * exp(-1.0 / x[0])), q1 = tape(x[2] * x[2] * sqrt(x[0]));
    const Expr w0 = q0 - q1, w1 = 2.0 * q1;
    kb.output("rows", {w0, w1, log(x[0]) * w0 + (x[0] * x[0]) * w1 + sin(x[0]) * q0});
  });
  const TapePattern p = tape_pattern(k);
  REQUIRE(p.heads[0].factored());
  REQUIRE(p.entries[0].size() == 1);
  CHECK_FALSE(p.heads[1].factored());  // b alone derived, through a leaf sqrt(T): not worth it
  const std::vector<TapeLinearOutput> outs = tape_linear_outputs(k, p);
  const TapeColumnPlan plan = plan_tape_columns(p, outs, 3, 10000);
  REQUIRE(plan.outputs == std::vector<int>{0, 1, 2});
  REQUIRE(plan.groups.size() == 1);
  const ColumnGroup& g = plan.groups[0];
  const std::vector<EntryComposition> c = compose_entries(g);
  REQUIRE(c.size() == g.entries.size());
  for (size_t i = 0; i < g.entries.size(); ++i) {
    const ColumnEntry& e = g.entries[i];
    CAPTURE(e.output);
    CAPTURE(e.column);
    if (e.output < 2) {  // factor-free: never composed
      CHECK(c[i].parts.empty());
      CHECK(c[i].rest.size() == e.terms.size());
      continue;
    }
    // Column a: q0 alone, so w0's entry is q0's slot, which g's term is too (composed as
    // well); w1's is empty. Columns T and b: both tapes, and g's term is left.
    std::vector<int> outputs;
    for (const ComposedPart& part : c[i].parts) {
      const ColumnEntry& from = g.entries[size_t(part.entry)];
      CHECK(from.column == e.column);
      CHECK(part.lambda == 1.0);
      outputs.push_back(from.output);
    }
    std::sort(outputs.begin(), outputs.end());
    if (e.column == 1) {
      CHECK(outputs == std::vector<int>{0, 0});
      CHECK(c[i].rest.empty());
      continue;
    }
    CHECK(outputs == std::vector<int>{0, 1});
    REQUIRE(c[i].rest.size() == 1);
    // q0 = a b exp(-1/T) is factored: its T component stored, a's and b's derived.
    const int staged = c[i].rest[0].staged;
    if (e.column == 0) {
      CHECK(g.slots[size_t(staged)] == p.offset[0] + 1);
    } else {
      REQUIRE(size_t(staged) >= g.slots.size());
      const DerivedSlot& d = g.derived[size_t(staged) - g.slots.size()];
      CHECK(d.tape == 0);
      CHECK(p.heads[0].derived[size_t(d.component)].direction.input == e.column);
    }
  }
}
