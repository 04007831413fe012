// How many of the tape columns' launches read each leaf of a mechanism's factored tapes
// (jit/tape_pattern.h): the factor by which a design that recomputed the leaves in each
// columns' group, instead of storing them in the tape, would repeat their exps. A leaf is read
// by a group where the group stages its slot or derives a component from it; the auxiliary
// launch reads every leaf (the cuts' sums). Leaves that are inputs or cuts cost nothing to
// recompute; the others are the rate constants (an exp each, or more).
//
//   kinetics_leaf_reuse [--mechanism FILE[:PHASE]] [--slots N]...
//     (default gri30.yaml, the columns form, group slots 200 and 175: the direct entries' and the
//     component-major launches' plans, backends/assembly/tape_columns_launches.h)
//
// Prints, for each plan, its groups, the costly leaves, and their mean and largest number of
// reading groups.
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "jit/tape_column_groups.h"
#include "jit/tape_linear_outputs.h"
#include "jit/tape_pattern.h"

using namespace dualjit;

namespace {

// head_derivative's algebra that records the leaves a derivative reads.
struct LeafReads {
  using Value = int;
  std::set<int>* leaves;
  int leaf(int i) {
    leaves->insert(i);
    return 0;
  }
  int constant(double) { return 0; }
  int add(int, int) { return 0; }
  int sub(int, int) { return 0; }
  int mul(int, int) { return 0; }
  int div(int, int) { return 0; }
  int neg(int) { return 0; }
};

}  // namespace

int main(int argc, char** argv) {
  std::string spec = "gri30.yaml";
  std::vector<int> slot_limits;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--mechanism" && i + 1 < argc) {
      spec = argv[++i];
    } else if (a == "--slots" && i + 1 < argc) {
      slot_limits.push_back(std::stoi(argv[++i]));
    } else {
      std::fprintf(stderr,
                   "usage: kinetics_leaf_reuse [--mechanism FILE[:PHASE]] [--slots N]...\n");
      return 2;
    }
  }
  if (slot_limits.empty()) slot_limits = {200, 175};
  const kinetics::Mechanism m = kinetics::load_mechanism(spec);
  const Kernel kernel = kinetics::production_rates_kernel(
      m, {kinetics::ReactorState::constant_pressure, kinetics::RateLawForm::columns});
  const jit::TapePattern p = jit::tape_pattern(kernel);
  const std::vector<jit::TapeLinearOutput> outs = jit::tape_linear_outputs(kernel, p);
  const Graph& g = kernel.graph();
  std::vector<bool> costly(p.leaves.size());
  for (size_t i = 0; i < p.leaves.size(); ++i) {
    const Op op = g.node(p.leaves[i]).op;
    costly[i] = op != Op::Input && op != Op::Cut;
  }
  const auto n_costly = std::count(costly.begin(), costly.end(), true);
  std::printf("%s: %zu leaves, %ld of them neither inputs nor cuts; tape %lld slots a cell\n",
              spec.c_str(), p.leaves.size(), static_cast<long>(n_costly),
              static_cast<long long>(p.size));
  for (const int limit : slot_limits) {
    const jit::TapeColumnPlan plan = jit::plan_tape_columns(p, outs, kernel.n_inputs(), limit);
    std::vector<int> readers(p.leaves.size(), 0);
    int64_t stored_reads = 0;
    const auto count_group = [&](const jit::ColumnGroup& grp) {
      std::set<int> leaves;
      for (const int64_t s : grp.slots) {
        if (s >= p.leaf_offset)
          leaves.insert(static_cast<int>(s - p.leaf_offset));
        else
          ++stored_reads;
      }
      for (const jit::DerivedSlot& d : grp.derived) {
        const jit::TapeHead& h = p.heads.at(static_cast<size_t>(d.tape));
        LeafReads reads{&leaves};
        jit::head_derivative(h, h.derived.at(static_cast<size_t>(d.component)).leaf, reads);
      }
      for (const int leaf : leaves) ++readers[static_cast<size_t>(leaf)];
    };
    for (const jit::ColumnGroup& grp : plan.groups) {
      count_group(grp);
      std::printf("  group of %zu columns: %zu staged (%zu slots, %zu derived), %zu entries\n",
                  grp.columns.size(), grp.staged(), grp.slots.size(), grp.derived.size(),
                  grp.entries.size());
    }
    count_group(plan.cut_group);
    int64_t sum = 0;
    int most = 0;
    for (size_t i = 0; i < readers.size(); ++i) {
      if (!costly[i]) continue;
      sum += readers[i];
      most = std::max(most, readers[i]);
    }
    std::printf(
        "group slots %d: %zu groups and the cuts'; each costly leaf read by %.2f groups (at most "
        "%d), plus the aux launch; stored slots read %lld times a cell (%lld stored)\n",
        limit, plan.groups.size(), n_costly ? double(sum) / double(n_costly) : 0.0, most,
        static_cast<long long>(stored_reads), static_cast<long long>(p.leaf_offset));
  }
  return 0;
}
