// The column plan of jit/tape_column_groups.h over the CPU backend's tapes, summed here and by
// the launch jit/emit_tape_columns.h lowers (its host form; its CUDA form compiled): its entries,
// D[o][c] + D[o][cut] d cut / dx_c, are the reference evaluator's Jacobian of each linear
// output, at random elements, wherever the output's tape-free factors do not move (here
// everywhere but the T column of the heat-like row, whose weights are functions of T: the part
// the present machinery keeps).
#include <doctest/doctest.h>

#include <cmath>

#include "backends/cpu/cpu_kernel.h"
#include "dsl/reference_evaluator.h"
#include "jit/cuda_image.h"
#include "jit/emit_tape_columns.h"
#include "jit/lowering.h"
#include "jit/nvrtc_compiler.h"
#include "jit/tape_column_groups.h"
#include "jit/tape_rest_kernel.h"
#include "support/element_problem.h"
#include "support/head_values.h"
#include "support/node_values.h"
#include "support/test_kernels.h"

using namespace dualjit;

namespace {

// Slot `slot` of element e in a tape buffer of `size` slots an element (jit/tape_pattern.h).
double tape_slot(const std::vector<double>& tape, int64_t e, int64_t slot, int64_t size) {
  const int64_t t = jit::kTapeTile;
  return tape[static_cast<size_t>((e / t * size + slot) * t + e % t)];
}

// What a group stages at index `staged` for element e: a tape slot, or a derived component
// from the leaves.
double staged_value(const jit::ColumnGroup& g, const jit::TapePattern& p,
                    const std::vector<double>& tape, int64_t e, int staged) {
  if (size_t(staged) < g.slots.size()) return tape_slot(tape, e, g.slots[size_t(staged)], p.size);
  const jit::DerivedSlot& d = g.derived.at(size_t(staged) - g.slots.size());
  return test::derived_value(p.heads[size_t(d.tape)], d.component, [&](int leaf) {
    return tape_slot(tape, e, p.leaf_slot(leaf), p.size);
  });
}

// An entry's sum: its terms over element e's tape and factor products.
double entry_sum(const jit::ColumnEntry& en, const jit::ColumnGroup& g,
                 const jit::TapeColumnPlan& plan, const std::vector<double>& tape, int64_t e,
                 const jit::TapePattern& p, const std::vector<double>& v) {
  double s = 0;
  for (const jit::ColumnTerm& t : en.terms) {
    double f = 1;
    if (t.factor >= 0)
      for (const jit::TapeFactor& x : plan.factors[size_t(t.factor)])
        f *= x.inverse ? 1.0 / v[size_t(x.node)] : v[size_t(x.node)];
    s += t.scale * f * staged_value(g, p, tape, e, t.staged);
  }
  return s;
}

// The CPU backend's tapes of the test mechanism over n random elements.
struct HostTapes {
  test::ElementProblem problem;
  test::HostOutputs out;
};

HostTapes host_tapes(const Kernel& k, int64_t n, uint64_t seed) {
  jit::LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.rows = 1;
  o.launches = 2;
  const std::vector<jit::LoweredKernel> parts = jit::lower_launches(k, o);
  REQUIRE(parts[0].writes_tape);
  const cpu::CpuKernel tapes(parts[0]);
  HostTapes h{test::make_problem(k, parts[0], n, seed), {}};
  tapes.run(test::host_args(h.problem, parts[0], h.out).args());
  return h;
}

}  // namespace

TEST_CASE("the column plan's sums over the tapes are the linear outputs' Jacobian") {
  const Kernel k = test::tape_kernel(true);
  const HostTapes h = host_tapes(k, 45, 17);
  const test::ElementProblem& pr = h.problem;
  const test::HostOutputs& out = h.out;

  const jit::TapePattern p = jit::tape_pattern(k);
  const jit::TapeColumnPlan plan =
      jit::plan_tape_columns(p, jit::tape_linear_outputs(k, p), k.n_inputs(), 5);
  REQUIRE(plan.cuts.size() == 1);
  const int ni = k.n_inputs(), np = k.n_params();
  double worst = 0;
  int checked = 0;
  for (int64_t e = 0; e < pr.n_elements; e += 4) {
    const std::vector<double> x(pr.batch.inputs.begin() + e * ni,
                                pr.batch.inputs.begin() + (e + 1) * ni);
    const std::vector<double> c(pr.batch.params.begin() + e * np,
                                pr.batch.params.begin() + (e + 1) * np);
    const JacobianResult ref = evaluate_jacobian(k, {x, c, pr.batch.uniforms}, 0);
    const std::vector<double> v = test::node_values(k, x, c, pr.batch.uniforms);
    // d cut / dx of s = 1 / (x1 + ... + x5): -s^2 for the y's, 0 for T.
    const double s = v[size_t(plan.cuts[0])];
    std::vector<double> cut_sum(size_t(k.n_outputs()));
    for (const jit::ColumnEntry& en : plan.cut_group.entries)
      cut_sum[size_t(en.output)] = entry_sum(en, plan.cut_group, plan, out.tape, e, p, v);
    for (const jit::ColumnGroup& g : plan.groups)
      for (const jit::ColumnEntry& en : g.entries) {
        if (en.output == 5 && en.column == 0) continue;  // moved by its weights' own T derivative
        const double ds = en.column == 0 ? 0.0 : -s * s;
        const double got =
            entry_sum(en, g, plan, out.tape, e, p, v) + cut_sum[size_t(en.output)] * ds;
        const double want = ref.jacobian[size_t(en.output * ni + en.column)];
        worst = std::max(worst, std::abs(got - want) / std::max(1.0, std::abs(want)));
        ++checked;
      }
  }
  CHECK(checked == 12 * (6 * 6 - 1));
  CHECK(worst < 1e-12);
}

TEST_CASE("the tape columns' launch and the rest kernel's Jacobian make the linear outputs'") {
  // The whole pipeline on the host: the tapes' launch; the rest kernel's values and Jacobian
  // (the cuts' gradients, the factor products, the factors' own derivatives); the cuts' sums
  // over the tapes; the columns' launch. Its entries plus the rest's Jacobian are the
  // reference evaluator's Jacobian of every linear output, component-major.
  const Kernel k = test::tape_kernel(true);
  const int64_t n = 37;  // a partial tile
  const HostTapes h = host_tapes(k, n, 19);
  const test::ElementProblem& pr = h.problem;
  const test::HostOutputs& out = h.out;
  const jit::TapePattern p = jit::tape_pattern(k);
  const std::vector<jit::TapeLinearOutput> outs = jit::tape_linear_outputs(k, p);
  const int ni = k.n_inputs(), np = k.n_params(), no = k.n_outputs();
  for (int limit : {3, 100}) {
    CAPTURE(limit);
    const jit::TapeColumnPlan plan = jit::plan_tape_columns(p, outs, ni, limit);
    const jit::TapeRestKernel rest = jit::tape_rest_kernel(k, p, outs, plan);
    jit::TapeColumnsOptions co;
    co.warps = 4;
    co.min_blocks = 0;
    const jit::LoweredKernel l = jit::lower_tape_columns(k, plan, p, co);
    const jit::TapeColumnsAux aux(plan, ni);
    const int nl = aux.n_linear, nc = aux.n_cuts;
    const int64_t tiles = (n + jit::kTapeTile - 1) / jit::kTapeTile;
    std::vector<double> ax(static_cast<size_t>(tiles * jit::kTapeTile * aux.size()), 0.0);
    const auto at = [&](int64_t e, int s) -> double& {
      return ax[static_cast<size_t>((e / 32 * aux.size() + s) * 32 + e % 32)];
    };
    std::vector<std::vector<double>> refs, rests;
    for (int64_t e = 0; e < n; ++e) {
      const std::vector<double> x(pr.batch.inputs.begin() + e * ni,
                                  pr.batch.inputs.begin() + (e + 1) * ni);
      std::vector<double> c(pr.batch.params.begin() + e * np,
                            pr.batch.params.begin() + (e + 1) * np);
      refs.push_back(evaluate_jacobian(k, {x, c, pr.batch.uniforms}, 0).jacobian);
      for (size_t t = 0; t < p.tapes.size(); ++t)
        c.push_back(tape_slot(out.tape, e, p.offset[t], p.size));  // the tapes' values
      const JacobianResult r = evaluate_jacobian(rest.kernel, {x, c, pr.batch.uniforms}, 0);
      rests.push_back(r.jacobian);
      for (int i = 0; i < nc; ++i) {
        for (int li = 0; li < nl; ++li) {
          const jit::ColumnEntry& en = plan.cut_group.entries[size_t(i * nl + li)];
          double sum = 0;
          for (const jit::ColumnTerm& t : en.terms)
            sum += t.scale * (t.factor >= 0 ? r.values[size_t(nl + nc + t.factor)] : 1.0) *
                   staged_value(plan.cut_group, p, out.tape, e, t.staged);
          at(e, aux.cut_sum(i, li)) = sum;
        }
        for (int j = 0; j < ni; ++j)
          at(e, aux.cut_gradient(i, j)) = r.jacobian[size_t((nl + i) * ni + j)];
      }
      for (int f = 0; f < aux.n_factors; ++f) at(e, aux.factor(f)) = r.values[size_t(nl + nc + f)];
    }
    std::vector<double> first(static_cast<size_t>(n * no * ni), std::nan(""));
    const cpu::CpuKernel columns(l);
    jit::ArgValues args;
    args.set("n_elements", n).set("tape", out.tape.data()).set("aux", ax.data());
    args.set("first", static_cast<const void*>(first.data()));
    columns.run(args);
    double worst = 0;
    for (int64_t e = 0; e < n; ++e)
      for (int li = 0; li < nl; ++li)
        for (int j = 0; j < ni; ++j) {
          const int row = plan.outputs[size_t(li)];
          const double got = first[static_cast<size_t>((row * ni + j) * n + e)] +
                             rests[size_t(e)][size_t(li * ni + j)];
          const double want = refs[size_t(e)][size_t(row * ni + j)];
          worst = std::max(worst, std::abs(got - want) / std::max(1.0, std::abs(want)));
        }
    CHECK(worst < 1e-12);
    // Row 6 is not linear: left alone.
    CHECK(std::isnan(first[static_cast<size_t>((6 * ni) * n)]));
    // The CUDA form compiles (NVRTC needs no GPU).
    const jit::CompiledImage image =
        jit::nvrtc_compile(l.cuda_entry, l.cuda_source, jit::default_compile_options(l, "sm_90"));
    CHECK(image.is_cubin);
  }
  CHECK_THROWS_AS(jit::lower_tape_columns(k, jit::TapeColumnPlan{}, p), std::invalid_argument);
}

TEST_CASE("the tape lowering's launches on the host: tapes, rest kernel, aux, columns") {
  // Every launch lowered and run by the CPU backend: the tapes'; the rest kernel's sparse
  // Jacobian over each element's params and its tapes' values; the auxiliary array's; the
  // columns'. The entries are the reference Jacobian of every linear output.
  const Kernel k = test::tape_kernel(true);
  const int64_t n = 41;
  const HostTapes h = host_tapes(k, n, 23);
  const jit::TapePattern p = jit::tape_pattern(k);
  const std::vector<jit::TapeLinearOutput> outs = jit::tape_linear_outputs(k, p);
  const jit::TapeColumnPlan plan = jit::plan_tape_columns(p, outs, k.n_inputs(), 3);
  const jit::TapeRestKernel rest = jit::tape_rest_kernel(k, p, outs, plan);
  const int ni = k.n_inputs(), np = k.n_params(), no = k.n_outputs();
  const int64_t row = np + static_cast<int64_t>(p.tapes.size());  // a tile row of params
  REQUIRE(np > 0);
  // The rest kernel's values and sparse Jacobian, tiled, over its params tiled as the tapes.
  jit::LoweringOptions ro;
  ro.mode = Mode::Jacobian;
  ro.sparse_jacobian = true;
  ro.first_stores = jit::FirstStores::Tiled;
  ro.tiled_values = true;
  ro.tiled_params.slots = row;
  for (int64_t i = 0; i < row; ++i) ro.tiled_params.at.push_back(i);
  const cpu::CpuKernel rest_kernel(jit::lower(rest.kernel, ro));
  const jit::JacobianPattern& pattern = rest_kernel.lowered().first_pattern;
  // The gather launch: each element's params, then its tapes' values.
  const cpu::CpuKernel gather(jit::lower_tape_gather(k, p));
  std::vector<double> gathered(static_cast<size_t>(jit::tape_doubles(row, n)), std::nan(""));
  jit::ArgValues ga;
  ga.set("n_elements", n).set("tape", h.out.tape.data()).set("params", h.problem.params.data());
  ga.set("out", static_cast<const void*>(gathered.data()));
  gather.run(ga);
  for (int64_t e = 0; e < n; ++e) {
    for (int i = 0; i < np; ++i)
      CHECK(tape_slot(gathered, e, i, row) == h.problem.params[size_t(e * np + i)]);
    for (size_t t = 0; t < p.tapes.size(); ++t)
      CHECK(tape_slot(gathered, e, np + int64_t(t), row) ==
            tape_slot(h.out.tape, e, p.offset[t], p.size));
  }
  test::HostOutputs rest_out;
  jit::ElementLaunch ra = test::host_args(h.problem, rest_kernel.lowered(), rest_out);
  ra.params = gathered.data();
  rest_kernel.run(ra.args());

  const jit::TapeColumnsAux aux(plan, ni, &pattern);
  CHECK(aux.n_rest == 1);  // the heat-like row's T column
  const jit::LoweredKernel fill_l = jit::lower_tape_aux(k, plan, pattern, p);
  const cpu::CpuKernel fill(fill_l);
  const int64_t tiles = (n + jit::kTapeTile - 1) / jit::kTapeTile;
  std::vector<double> ax(static_cast<size_t>(tiles * jit::kTapeTile * aux.size()), 0.0);
  jit::ArgValues fa;
  fa.set("n_elements", n).set("tape", h.out.tape.data());
  fa.set("rest_values", rest_out.values.data()).set("rest_first", rest_out.first.data());
  fa.set("aux", static_cast<const void*>(ax.data()));
  fill.run(fa);
  // The aux launch splits a tile's work over `parts` warps, whose partial sums meet in shared
  // memory; the host runs the same phases part by part. Any count compiles (NVRTC needs no
  // GPU) and gives the same slots, summed in another order: each slot within 1e-14 of the
  // largest magnitude that slot takes.
  for (int parts : {1, 3, 8}) {
    CAPTURE(parts);
    const jit::LoweredKernel l = jit::lower_tape_aux(k, plan, pattern, p, parts);
    CHECK(l.launch.block_threads == 32 * parts);
    CHECK(jit::nvrtc_compile(l.cuda_entry, l.cuda_source, jit::default_compile_options(l, "sm_90"))
              .is_cubin);
    std::vector<double> again(ax.size(), std::nan(""));
    fa.set("aux", static_cast<const void*>(again.data()));
    cpu::CpuKernel(l).run(fa);
    for (int slot = 0; slot < aux.size(); ++slot) {
      CAPTURE(slot);
      double scale = 0, diff = 0;
      bool written = true;  // a slot left NaN fails
      for (int64_t e = 0; e < n; ++e) {
        const double want = tape_slot(ax, e, slot, aux.size());
        const double got = tape_slot(again, e, slot, aux.size());
        scale = std::max(scale, std::abs(want));
        diff = std::max(diff, std::abs(got - want));
        written = written && std::isfinite(got);
      }
      CHECK(written);
      CHECK(diff <= 1e-14 * scale);
    }
  }
  for (int parts : {0, 33})
    CHECK_THROWS_AS(jit::lower_tape_aux(k, plan, pattern, p, parts), std::invalid_argument);

  // The columns in two launches, the first group alone and the others.
  REQUIRE(plan.groups.size() > 1);
  jit::TapeColumnsOptions co{4, 0};
  co.groups = {0, 1};
  const jit::LoweredKernel columns_l = jit::lower_tape_columns(k, plan, p, co, &pattern);
  co.groups = {1, -1};
  const jit::LoweredKernel others_l = jit::lower_tape_columns(k, plan, p, co, &pattern);
  CHECK(columns_l.symbol != others_l.symbol);
  std::vector<double> first(static_cast<size_t>(n * no * ni), std::nan(""));
  jit::ArgValues ca;
  ca.set("n_elements", n).set("tape", h.out.tape.data()).set("aux", ax.data());
  ca.set("first", static_cast<const void*>(first.data()));
  cpu::CpuKernel(columns_l).run(ca);
  cpu::CpuKernel(others_l).run(ca);
  for (const jit::ChunkRange bad : {jit::ChunkRange{1, 1}, jit::ChunkRange{0, 99}})
    CHECK_THROWS_AS(jit::lower_tape_columns(k, plan, p, {4, 0, bad}, &pattern),
                    std::invalid_argument);

  double worst = 0;
  for (int64_t e = 0; e < n; ++e) {
    const std::vector<double> x(h.problem.batch.inputs.begin() + e * ni,
                                h.problem.batch.inputs.begin() + (e + 1) * ni);
    const std::vector<double> c(h.problem.batch.params.begin() + e * np,
                                h.problem.batch.params.begin() + (e + 1) * np);
    const std::vector<double> ref =
        evaluate_jacobian(k, {x, c, h.problem.batch.uniforms}, 0).jacobian;
    for (int row : plan.outputs)
      for (int j = 0; j < ni; ++j) {
        const double got = first[static_cast<size_t>((row * ni + j) * n + e)];
        const double want = ref[size_t(row * ni + j)];
        worst = std::max(worst, std::abs(got - want) / std::max(1.0, std::abs(want)));
      }
  }
  CHECK(worst < 1e-12);
  // Direct entries, for cell-major blocks: their slots number the entries that have terms in
  // row-major order; this kernel's row 6 is not linear, so neither they nor the expand launch
  // are lowered for it.
  const jit::DirectEntries de = jit::direct_entries(plan, no, ni);
  int with_terms = 0, next = 0;
  for (const jit::ColumnGroup& g : plan.groups)
    for (const jit::ColumnEntry& en : g.entries) {
      with_terms += !en.terms.empty();
      CHECK((de.at(en.output, en.column) >= 0) == !en.terms.empty());
    }
  CHECK(de.count == with_terms);
  for (int slot : de.slot)
    if (slot >= 0) CHECK(slot == next++);
  co.groups = {0, -1};
  co.stores = jit::ColumnStores::DirectTiles;
  CHECK_THROWS_AS(jit::lower_tape_columns(k, plan, p, co, &pattern), std::invalid_argument);
  CHECK_THROWS_AS(jit::lower_tape_expand(k, plan, &pattern), std::invalid_argument);
  const jit::LoweredKernel gather_l = jit::lower_tape_gather(k, p);
  for (const jit::LoweredKernel* l : {&fill_l, &columns_l, &others_l, &gather_l}) {
    const jit::CompiledImage image = jit::nvrtc_compile(l->cuda_entry, l->cuda_source,
                                                        jit::default_compile_options(*l, "sm_90"));
    CHECK(image.is_cubin);
  }
}
