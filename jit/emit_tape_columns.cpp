#include "jit/emit_tape_columns.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "jit/driver_text.h"
#include "jit/emit_element.h"

namespace dualjit::jit {

TapeColumnsAux::TapeColumnsAux(const TapeColumnPlan& plan, int inputs, const JacobianPattern* rest)
    : n_linear(static_cast<int>(plan.outputs.size())),
      n_cuts(static_cast<int>(plan.cuts.size())),
      n_inputs(inputs),
      n_factors(static_cast<int>(plan.factors.size())),
      n_rest(rest ? rest->row_ptr.at(static_cast<size_t>(n_linear)) : 0) {}

namespace {

std::string identifier(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return out;
}

// A launch of the kernel's Jacobian named `dj_<kernel>_<what>`; its argument table starts with
// n_elements.
LoweredKernel named_launch(const Kernel& kernel, const std::string& what) {
  LoweredKernel out;
  out.kernel_name = kernel.name();
  out.symbol = "dj_" + identifier(kernel.name()) + "_" + what;
  out.label = "kernel '" + kernel.name() + "' (" + out.symbol + ")";
  out.cuda_entry = out.symbol;
  out.host_entry = out.symbol + "_host";
  out.options.mode = Mode::Jacobian;
  out.args.add({"n_elements", ArgKind::Int64, "", 1, false, "elements"});
  return out;
}

// named_launch's, reading the kernel's tape of `tape_size` slots: then the argument tape.
LoweredKernel tape_launch(const Kernel& kernel, const std::string& what, int64_t tape_size) {
  LoweredKernel out = named_launch(kernel, what);
  out.tape_size = tape_size;
  out.args.add({"tape", ArgKind::Pointer, "const double*", 1, true, "tape buffer"});
  return out;
}

// A term weighing one and each factor it reads from the auxiliary array one more.
size_t terms_load(const std::vector<ColumnTerm>& terms) {
  std::vector<int> factors;
  for (const ColumnTerm& t : terms)
    if (t.factor >= 0 && std::find(factors.begin(), factors.end(), t.factor) == factors.end())
      factors.push_back(t.factor);
  return terms.size() + factors.size();
}

// `entries` (indices into a group's entries, column-major over the linear outputs) spread over
// the warps: the heaviest first to the least loaded; each warp's in output order. Entries, not
// whole outputs: GRI-3.0's heat release has a term per reaction in every column, and a warp
// that owned its row would run several times longer than the others while the block's shared
// memory waits.
std::vector<std::vector<int>> balance(std::vector<int> entries, const std::vector<size_t>& load,
                                      size_t n_linear, int warps) {
  std::stable_sort(entries.begin(), entries.end(),
                   [&load](int a, int b) { return load[size_t(a)] > load[size_t(b)]; });
  std::vector<std::vector<int>> owned(static_cast<size_t>(warps));
  std::vector<size_t> total(static_cast<size_t>(warps), 0);
  for (int i : entries) {
    const size_t w =
        static_cast<size_t>(std::min_element(total.begin(), total.end()) - total.begin());
    owned[w].push_back(i);
    total[w] += load[size_t(i)];
  }
  for (std::vector<int>& mine : owned) {
    std::sort(mine.begin(), mine.end(), [n_linear](int a, int b) {
      const size_t la = size_t(a) % n_linear, lb = size_t(b) % n_linear;
      return la != lb ? la < lb : a < b;
    });
  }
  return owned;
}

// An entry's sum: `operand(staged)` and `factor(f)` spell the reads. The terms without a
// factor first, then each factor once, times its terms' sum (in order of first use): a heat
// release summed over species weighs a species' every term by one factor.
template <class Operand, class Factor>
std::string sum_text(const std::vector<ColumnTerm>& terms, Operand operand, Factor factor) {
  const auto add = [&operand](std::string& s, const ColumnTerm& t) {
    const std::string term = operand(t.staged);
    if (t.scale == 1.0) {
      s += s.empty() ? term : " + " + term;
    } else if (t.scale == -1.0) {
      s += (s.empty() ? "-" : " - ") + term;
    } else {
      s += (s.empty() ? "" : " + ") + c_literal(t.scale) + " * " + term;
    }
  };
  std::string s;
  std::vector<int> factors;
  for (const ColumnTerm& t : terms) {
    if (t.factor < 0) {
      add(s, t);
    } else if (std::find(factors.begin(), factors.end(), t.factor) == factors.end()) {
      factors.push_back(t.factor);
    }
  }
  for (int f : factors) {
    std::string inner;
    for (const ColumnTerm& t : terms)
      if (t.factor == f) add(inner, t);
    s += (s.empty() ? "" : " + ") + factor(f) + " * (" + inner + ")";
  }
  return s.empty() ? "0.0" : s;
}

// A factored tape's head (jit/tape_head.h) as statements, a temporary a value, each
// expression once however many derived components of the same scope compute it (a
// concentration, a product of them).
struct HeadText {
  using Value = std::string;
  std::ostringstream& os;
  std::string indent;
  std::function<std::string(int)> read;  // a leaf's value
  int n = 0;
  std::map<std::string, std::string> made;
  std::string let(const std::string& expr) {
    const auto [it, fresh] = made.try_emplace(expr, "h" + std::to_string(n));
    if (fresh) os << indent << "const double h" << n++ << " = " << expr << ";\n";
    return it->second;
  }
  std::string leaf(int i) { return read(i); }
  std::string constant(double c) { return c_literal(c); }
  std::string add(const std::string& a, const std::string& b) { return let(a + " + " + b); }
  std::string sub(const std::string& a, const std::string& b) { return let(a + " - " + b); }
  std::string mul(const std::string& a, const std::string& b) { return let(a + " * " + b); }
  std::string div(const std::string& a, const std::string& b) { return let(a + " / " + b); }
  std::string neg(const std::string& a) { return let("-" + a); }
};

// A leaf's value in the tape, for the element whose lane `tp` is at.
std::function<std::string(int)> tape_leaf(const TapePattern& tapes) {
  return [&tapes](int leaf) { return "tp[" + std::to_string(tapes.leaf_slot(leaf) * 32) + "]"; };
}

// `target(k) = component;` for each derived component which[k], at `indent`, in one scope: an
// expression they share (a concentration, a product of them) is computed once.
std::string derived_statements(const TapePattern& tapes, const std::vector<DerivedSlot>& which,
                               const std::string& indent,
                               const std::function<std::string(size_t)>& target) {
  std::ostringstream os;
  HeadText text{os, indent, tape_leaf(tapes), 0, {}};
  for (size_t k = 0; k < which.size(); ++k) {
    const TapeHead& h = tapes.heads.at(static_cast<size_t>(which[k].tape));
    const std::string v =
        head_derivative(h, h.derived.at(static_cast<size_t>(which[k].component)).leaf, text);
    os << indent << target(k) << " = " << v << ";\n";
  }
  return os.str();
}

// `target = d;` for derived component d, in a scope of its own.
std::string derived_text(const TapePattern& tapes, const DerivedSlot& d, const std::string& indent,
                         const std::string& target) {
  return indent + "{\n" +
         derived_statements(tapes, {d}, indent + "  ", [&target](size_t) { return target; }) +
         indent + "}\n";
}

// factor * lambda * value, lambda left out where it is 1.
std::string weighted(const std::string& factor, double lambda, const std::string& value) {
  return factor + (lambda == 1.0 ? "" : " * " + c_literal(lambda)) + " * " + value;
}

// A composed entry's sum (compose_entries): each part's factor times lambda times its entry's
// sum, `value(entry)`, then the terms no part covers.
template <class Operand, class Factor, class Value>
std::string composed_text(const EntryComposition& c, Operand operand, Factor factor, Value value) {
  std::string s;
  for (const ComposedPart& part : c.parts)
    s += (s.empty() ? "" : " + ") + weighted(factor(part.factor), part.lambda, value(part.entry));
  if (!c.rest.empty()) s += " + " + sum_text(c.rest, operand, factor);
  return s;
}

// Which of a cut's auxiliary values an entry reads: D[o][cut] (indexed by the linear output)
// or d cut / dx_c (by the column).
enum class CutPart { Sum, Gradient };

// + sum over cuts of D[o][cut] d cut / dx_c, + the rest kernel's entry where it has one,
// reading `ax` (the element's auxiliary slots); `cut_value(i, part, index)` spells the read of
// cut i's part.
template <class CutValue>
std::string cut_text(const TapeColumnsAux& aux, const JacobianPattern* rest, int linear, int column,
                     CutValue cut_value) {
  std::string s;
  for (int i = 0; i < aux.n_cuts; ++i)
    s += " + " + cut_value(i, CutPart::Sum, linear) + " * " +
         cut_value(i, CutPart::Gradient, column);
  if (rest) {
    if (const int64_t k = rest->index(linear, column); k >= 0)
      s += " + ax[" + std::to_string(aux.rest(static_cast<int>(k)) * 32) + "]";
  }
  return s;
}

}  // namespace

LoweredKernel lower_tape_columns(const Kernel& kernel, const TapeColumnPlan& plan,
                                 const TapePattern& tapes, const TapeColumnsOptions& o,
                                 const JacobianPattern* rest) {
  const int64_t tape_size = tapes.size;
  if (plan.outputs.empty() || plan.groups.empty()) {
    throw std::invalid_argument("kernel '" + kernel.name() +
                                "': no output linear in its tapes, no tape columns to lower");
  }
  if (o.warps < 1 || o.warps > 32 || o.min_blocks < 0 || o.tile_window < 0 || tape_size < 1) {
    throw std::invalid_argument(
        "kernel '" + kernel.name() + "': tape columns of " + std::to_string(o.warps) +
        " warps, min blocks " + std::to_string(o.min_blocks) + ", windows of " +
        std::to_string(o.tile_window) + " tiles, tape of " + std::to_string(tape_size) + " slots");
  }
  const int ni = kernel.n_inputs(), W = o.warps, n_groups = static_cast<int>(plan.groups.size());
  const int g0 = o.groups.first, g1 = o.groups.all() ? n_groups : o.groups.last;
  if (g0 < 0 || g1 > n_groups || g0 >= g1) {
    throw std::invalid_argument("kernel '" + kernel.name() + "': tape column groups [" +
                                std::to_string(g0) + ", " + std::to_string(g1) + ") of " +
                                std::to_string(n_groups));
  }
  const size_t n_linear = plan.outputs.size();
  const int no = kernel.n_outputs();
  const bool cell_columns = o.stores == ColumnStores::CellColumns;
  const bool direct = o.stores == ColumnStores::DirectTiles;
  if ((cell_columns || direct) && n_linear != static_cast<size_t>(no)) {
    throw std::invalid_argument("kernel '" + kernel.name() + "': tape columns storing " +
                                (direct ? "direct entries" : "cell-major columns") +
                                " need every output linear (" + std::to_string(n_linear) + " of " +
                                std::to_string(no) + ")");
  }
  // DirectTiles: the entries with terms alone, without the cuts' and the rest's parts.
  const DirectEntries de = direct ? direct_entries(plan, no, ni) : DirectEntries{};
  const int n_cuts = direct ? 0 : static_cast<int>(plan.cuts.size());
  // CellColumns: each element's run of a group's columns in shared memory ahead of the staged
  // slots, `stride` doubles apart, odd so that a warp's stores of one entry meet no bank twice.
  const int64_t fs = int64_t(no) * ni;
  size_t run_max = 0;
  for (int g = g0; g < g1; ++g) {
    const std::vector<int>& cs = plan.groups[static_cast<size_t>(g)].columns;
    if (cell_columns && cs.back() - cs.front() + 1 != static_cast<int>(cs.size())) {
      throw std::invalid_argument("kernel '" + kernel.name() + "': tape column group " +
                                  std::to_string(g) +
                                  " is not consecutive columns, no run of a cell-major block");
    }
    run_max = std::max(run_max, cs.size() * size_t(no));
  }
  const size_t stride = run_max | 1;
  const size_t runs = cell_columns ? 32 * stride : 0;
  const TapeColumnsAux aux(plan, ni, rest);
  LoweredKernel out = tape_launch(
      kernel,
      "tape_columns_g" + std::to_string(g0) + "_" + std::to_string(g1) + "_w" + std::to_string(W) +
          (o.min_blocks > 0 ? "_m" + std::to_string(o.min_blocks) : "") +
          (o.tile_window > 0 ? "_tw" + std::to_string(o.tile_window) : "") +
          (direct         ? "_dt"
           : cell_columns ? "_cc"
                          : ""),
      tape_size);
  out.first_size = static_cast<size_t>(kernel.n_outputs()) * static_cast<size_t>(ni);
  // Where entry (output, column) of element e is stored; tiled, the device's `first` is
  // already at the element's tile and lane.
  int64_t group_c0 = 0;  // the group's first column, where its run starts
  const auto at = [&](const ColumnEntry& en, bool host) {
    const int64_t i = int64_t(en.output) * ni + en.column;
    if (cell_columns) {
      if (host)
        return "first[e * " + std::to_string(fs) + "LL + " +
               std::to_string(int64_t(en.column) * no + en.output) + "]";
      return "O[" + std::to_string((en.column - group_c0) * no + en.output) + "]";
    }
    if (o.stores == ColumnStores::ComponentMajor)
      return "first[" + std::to_string(i) + "LL * n + e]";
    const int k = de.at(en.output, en.column);
    if (!host) return "first[" + std::to_string(int64_t(k) * kTapeTile) + "]";
    return "first[((e / " + std::to_string(kTapeTile) + ") * " + std::to_string(de.count) +
           "LL + " + std::to_string(k) + ") * " + std::to_string(kTapeTile) + " + e % " +
           std::to_string(kTapeTile) + "]";
  };
  out.args
      .add({"aux", ArgKind::Pointer, "const double*", 1, true,
            "the tapes' cut sums, cut gradients and factor products"})
      .add({"first", ArgKind::Pointer, "double*", 1, true, "component-major Jacobian entries"});
  const std::string type = "DjArgs_" + out.symbol;
  const std::string& sym = out.symbol;

  // + the cuts' and the rest's parts of entry (linear output l, column), but for DirectTiles.
  const auto cut_of = [&](int l, int column, auto cut_value) {
    return direct ? std::string() : cut_text(aux, rest, l, column, cut_value);
  };
  std::ostringstream cu, host;
  size_t smem = 0;
  // Read straight from the auxiliary array: the host's cut values.
  const auto ax_cut = [&aux](int i, CutPart part, int index) {
    const int slot = part == CutPart::Sum ? aux.cut_sum(i, index) : aux.cut_gradient(i, index);
    return "ax[" + std::to_string(slot * 32) + "]";
  };
  for (int g = g0; g < g1; ++g) {
    const ColumnGroup& grp = plan.groups[static_cast<size_t>(g)];
    const std::vector<EntryComposition> comp = compose_entries(grp);
    // Phase 1 the entries that are not composed, each feeding the composed entries it is a
    // part of through a register a warp; the warps' partial sums meet in shared memory beside
    // the staged slots; phase 2 the composed entries.
    std::vector<int> plain, composed;
    std::vector<size_t> load(grp.entries.size(), 1);
    for (size_t i = 0; i < grp.entries.size(); ++i) {
      if (direct && grp.entries[i].terms.empty()) continue;  // its cut and rest parts alone
      (comp[i].parts.empty() ? plain : composed).push_back(static_cast<int>(i));
      load[i] += terms_load(comp[i].rest);
    }
    std::vector<std::vector<std::pair<int, const ComposedPart*>>> feeds(grp.entries.size());
    for (int q : composed)
      for (const ComposedPart& part : comp[size_t(q)].parts)
        feeds[size_t(part.entry)].push_back({q, &part});
    const std::vector<std::vector<int>> owned = balance(plain, load, n_linear, W);
    std::map<std::pair<int, size_t>, size_t> partial_at;  // (composed entry, warp) -> slot
    for (size_t w = 0; w < owned.size(); ++w)
      for (int i : owned[w])
        for (const auto& [q, part] : feeds[size_t(i)])
          partial_at.try_emplace({q, w}, grp.staged() + partial_at.size());
    for (int q : composed) load[size_t(q)] += partial_at.size();  // an upper bound, as weight
    const std::vector<std::vector<int>> owned_composed = balance(composed, load, n_linear, W);
    smem = std::max(smem, (runs + (grp.staged() + partial_at.size()) * 32) * sizeof(double));
    const std::string fn = sym + "_g" + std::to_string(g);
    // The group's tape slots, staged by the block.
    cu << "__constant__ long long " << fn << "_slots[" << std::max<size_t>(grp.slots.size(), 1)
       << "] = {";
    for (size_t i = 0; i < grp.slots.size(); ++i) cu << (i ? ", " : "") << grp.slots[i];
    cu << (grp.slots.empty() ? "0" : "") << "};\n";
    cu << "__device__ __forceinline__ void " << fn
       << "(const double* __restrict__ tp, const double* __restrict__ ax, "
          "double* __restrict__ st, double* __restrict__ first, long long n, long long e, "
          "bool live, int lane, int warp) {\n"
       << "  for (int i = warp; i < " << grp.slots.size() << "; i += " << W
       << ") st[i * 32 + lane] = tp[" << fn << "_slots[i] * 32];\n";
    // The derived components from their leaves in the tape (each element's leaves a few lines
    // that the group's warps read again from L1: staged, they tripled the shared memory a
    // block takes and cut the blocks a multiprocessor holds), spread over the warps.
    if (!grp.derived.empty()) {
      // A warp's in one scope, each expression they share (a concentration, a product of
      // them) once. GRI-3.0's column of H derives 121 components: six groups' code side by
      // side in a cell-major launch missed the instruction cache (bench/RESULTS.md; fewer
      // groups a launch mended it, TapeColumnsSettings::cell_launch_groups).
      cu << "  switch (warp) {\n";
      for (int w = 0; w < W && size_t(w) < grp.derived.size(); ++w) {
        std::vector<DerivedSlot> mine;
        for (size_t k = size_t(w); k < grp.derived.size(); k += size_t(W))
          mine.push_back(grp.derived[k]);
        const std::string statements = derived_statements(tapes, mine, "      ", [&](size_t i) {
          return "st[" + std::to_string((grp.slots.size() + size_t(w) + i * size_t(W)) * 32) +
                 " + lane]";
        });
        cu << "    case " << w << ": {\n" << statements << "      break;\n    }\n";
      }
      cu << "  }\n";
    }
    cu << "  __syncthreads();\n"
       << "  double* S = st + lane;\n";
    // The element's run: O[(column - c0) * outputs + output].
    const int64_t c0 = group_c0 = grp.columns.front(), run = int64_t(grp.columns.size()) * no;
    if (cell_columns) cu << "  double* O = st - " << runs << " + lane * " << stride << ";\n";
    // The cuts' gradients at the group's columns in registers, read once a warp; each
    // output's cut sums once where its warp starts it: not once an entry from L1.
    for (int i = 0; i < n_cuts; ++i) {
      for (size_t ci = 0; ci < grp.columns.size(); ++ci) {
        cu << "  const double cg" << i << "_" << grp.columns[ci] << " = ax["
           << aux.cut_gradient(i, grp.columns[ci]) * 32 << "];\n";
      }
    }
    const auto register_cut = [](int i, CutPart part, int index) {
      return (part == CutPart::Sum ? "cs" : "cg") + std::to_string(i) + "_" + std::to_string(index);
    };
    const auto staged = [](int st) { return "S[" + std::to_string(st * 32) + "]"; };
    const auto ax_factor = [&aux](int f) {
      return "ax[" + std::to_string(aux.factor(f) * 32) + "]";
    };
    // One phase: each warp's entries, an output's cut sums read where its warp starts it;
    // `entry(w, i, l)` writes the statements of entry i (of linear output l).
    const auto phase = [&](const std::vector<std::vector<int>>& by_warp, auto&& entry) {
      cu << "  switch (warp) {\n";
      for (size_t w = 0; w < by_warp.size(); ++w) {
        if (by_warp[w].empty()) continue;
        cu << "    case " << w << ": {\n";
        std::vector<int> fed;  // the composed entries this warp's partials hold
        for (int i : by_warp[w])
          for (const auto& [q, part] : feeds[size_t(i)])
            if (std::find(fed.begin(), fed.end(), q) == fed.end()) fed.push_back(q);
        for (int q : fed) cu << "      double p" << q << " = 0.0;\n";
        int open = -1;  // the output whose cut sums the open scope holds
        for (int i : by_warp[w]) {
          const int l = static_cast<int>(size_t(i) % n_linear);
          if (l != open) {
            cu << (open >= 0 ? "      }\n" : "") << "      {\n";
            for (int c = 0; c < n_cuts; ++c)
              cu << "      const double " << register_cut(c, CutPart::Sum, l) << " = "
                 << ax_cut(c, CutPart::Sum, l) << ";\n";
            open = l;
          }
          entry(w, i, l);
        }
        cu << (open >= 0 ? "      }\n" : "");
        for (int q : fed) cu << "      S[" << partial_at.at({q, w}) * 32 << "] = p" << q << ";\n";
        cu << "      break;\n    }\n";
      }
      cu << "  }\n";
    };
    // Shared memory takes every lane's entries; the copy below stores the live elements'.
    const std::string guard = cell_columns ? "      " : "      if (live) ";
    phase(owned, [&](size_t, int i, int l) {
      const ColumnEntry& en = grp.entries[size_t(i)];
      const std::string store = guard + at(en, false) + " = ";
      const std::string cut = cut_of(l, en.column, register_cut);
      if (feeds[size_t(i)].empty()) {
        cu << store << sum_text(en.terms, staged, ax_factor) << cut << ";\n";
        return;
      }
      cu << "      {\n        const double s = " << sum_text(en.terms, staged, ax_factor) << ";\n"
         << "  " << store << "s" << cut << ";\n";
      for (const auto& [q, part] : feeds[size_t(i)]) {
        cu << "        p" << q << " += " << weighted(ax_factor(part->factor), part->lambda, "s")
           << ";\n";
      }
      cu << "      }\n";
    });
    if (!composed.empty()) {
      cu << "  __syncthreads();\n";
      phase(owned_composed, [&](size_t, int q, int l) {
        const ColumnEntry& en = grp.entries[size_t(q)];
        std::string sum;
        for (const auto& [key, at] : partial_at)
          if (key.first == q) sum += (sum.empty() ? "" : " + ") + staged(static_cast<int>(at));
        if (!comp[size_t(q)].rest.empty())
          sum += " + " + sum_text(comp[size_t(q)].rest, staged, ax_factor);
        cu << guard << at(en, false) << " = " << (sum.empty() ? "0.0" : sum)
           << cut_of(l, en.column, register_cut) << ";\n";
      });
    }
    if (cell_columns) {
      // The block's runs, after a barrier: the warps an element at a time, each store 32
      // consecutive entries of one run.
      cu << "  {\n"
         << "    const long long e0 = e - lane, left = n - e0;\n"
         << "    const double* R = st - " << runs << ";\n"
         << "    double* out = first + e0 * " << fs << "LL + " << c0 * no << ";\n"
         << "    __syncthreads();\n"
         << "    for (int c = warp; c < 32 && c < left; c += " << W << ")\n"
         << "      for (int k = lane; k < " << run << "; k += 32) out[c * " << fs
         << "LL + k] = R[c * " << stride << " + k];\n";
      cu << "  }\n";
    }
    cu << "}\n";
    // The host's: the same sums, read in place, an element at a time: the composed entries
    // after the others, from their sums.
    host << "static void " << fn << "_host(const double* tp, const double* ax, double* first, "
         << "long long n, long long e) {\n";
    for (size_t k = 0; k < grp.derived.size(); ++k) {
      host << "  double d" << k << ";\n"
           << derived_text(tapes, grp.derived[k], "  ", "d" + std::to_string(k));
    }
    const auto slot = [&grp](int st) {
      if (size_t(st) >= grp.slots.size())
        return "d" + std::to_string(size_t(st) - grp.slots.size());
      return "tp[" + std::to_string(grp.slots[size_t(st)] * 32) + "]";
    };
    for (int pass = 0; pass < 2; ++pass) {
      for (int i : pass == 0 ? plain : composed) {
        const ColumnEntry& en = grp.entries[size_t(i)];
        const std::string sum = pass == 0
                                    ? sum_text(en.terms, slot, ax_factor)
                                    : composed_text(comp[size_t(i)], slot, ax_factor,
                                                    [](int j) { return "s" + std::to_string(j); });
        const std::string cut = cut_of(static_cast<int>(size_t(i) % n_linear), en.column, ax_cut);
        if (!feeds[size_t(i)].empty()) {
          host << "  const double s" << i << " = " << sum << ";\n  " << at(en, true) << " = s" << i
               << cut << ";\n";
        } else {
          host << "  " << at(en, true) << " = " << sum << cut << ";\n";
        }
      }
    }
    host << "}\n";
  }
  const std::string bounds =
      std::to_string(32 * W) + (o.min_blocks > 0 ? ", " + std::to_string(o.min_blocks) : "");
  cu << "extern \"C\" __global__ void __launch_bounds__(" << bounds << ") " << sym << "(const "
     << type << " a) {\n"
     << "  extern __shared__ __align__(16) double st[];\n"
     << "  const long long n = a.n_elements, b = blockIdx.x;\n"
     // Windows of tile_window tiles (the last may be short), each group over its window's
     // tiles in turn.
     << "  const long long tiles = (n + 31) / 32, span = "
     << (o.tile_window > 0 ? std::to_string(o.tile_window) + "LL" : std::string("tiles"))
     << ", first_tile = b / (span * " << g1 - g0 << ") * span, width = tiles - first_tile < "
     << "span ? tiles - first_tile : span, r = b - first_tile * " << g1 - g0 << ";\n"
     << "  const long long tile = first_tile + r % width, e = tile * 32 + (threadIdx.x & 31);\n"
     << "  const int g = (int)(r / width), lane = threadIdx.x & 31, warp = threadIdx.x >> 5;\n"
     << "  const double* tp = a.tape + tile * " << tape_size * 32 << "LL + lane;\n"
     << "  const double* ax = a.aux + tile * " << int64_t(aux.size()) * 32 << "LL + lane;\n"
     << (cell_columns ? "  double* slots = st + " + std::to_string(runs) + ";\n"
                      : "  double* slots = st;\n")
     << "  switch (g) {\n";
  const std::string first =
      direct ? "a.first + tile * " + std::to_string(int64_t(de.count) * kTapeTile) + "LL + lane"
             : "a.first";
  for (int g = g0; g < g1; ++g) {
    cu << "    case " << g - g0 << ": " << sym << "_g" << g << "(tp, ax, slots, " << first
       << ", n, e, e < n, lane, warp); break;\n";
  }
  cu << "  }\n}\n";
  host << "extern \"C\" void " << sym << "_host(const " << type << "* a) {\n"
       << "  const long long n = a->n_elements;\n"
       << "  for (long long e = 0; e < n; ++e) {\n"
       << "    const double* tp = a->tape + (e / 32) * " << tape_size * 32 << "LL + e % 32;\n"
       << "    const double* ax = a->aux + (e / 32) * " << int64_t(aux.size()) * 32
       << "LL + e % 32;\n";
  for (int g = g0; g < g1; ++g)
    host << "    " << sym << "_g" << g << "_host(tp, ax, a->first, n, e);\n";
  host << "  }\n}\n";

  const std::string args_struct = out.args.struct_text(type);
  out.element_source = args_struct;
  out.cuda_source = cuda_prelude() + "\n" + args_struct + "\n" + cu.str();
  out.host_source = host_prelude() + "\n" + args_struct + "\n" + host.str();
  out.launch.items = "n_elements";
  out.launch.items_per_block = 32;
  out.launch.block_threads = 32 * W;
  out.launch.dynamic_shared_bytes = smem;
  out.launch.blocks_per_item_block = g1 - g0;
  return out;
}

LoweredKernel lower_tape_expand(const Kernel& kernel, const TapeColumnPlan& plan,
                                const JacobianPattern* rest) {
  const int no = kernel.n_outputs(), ni = kernel.n_inputs();
  if (plan.outputs.size() != static_cast<size_t>(no) || no < 1) {
    throw std::invalid_argument("kernel '" + kernel.name() + "': expanding tape columns' " +
                                "direct entries needs every output linear (" +
                                std::to_string(plan.outputs.size()) + " of " + std::to_string(no) +
                                ")");
  }
  const DirectEntries de = direct_entries(plan, no, ni);
  const TapeColumnsAux aux(plan, ni, rest);
  const int64_t fs = int64_t(no) * ni;
  constexpr int kRun = 64;  // a block's entries of each element's block
  const int64_t chunks = (fs + kRun - 1) / kRun;
  LoweredKernel out = named_launch(kernel, "tape_expand");
  out.first_size = static_cast<size_t>(fs);
  out.args
      .add({"direct", ArgKind::Pointer, "const double*", 1, true, "the columns' direct entries"})
      .add({"aux", ArgKind::Pointer, "const double*", 1, true,
            "the tapes' cut sums, cut gradients and rest entries"})
      .add({"first", ArgKind::Pointer, "double*", 1, true, "cell-major row-major blocks"});
  const std::string type = "DjArgs_" + out.symbol, &sym = out.symbol;
  // Per entry (row-major position p): its direct slot and its rest kernel's auxiliary slot, or
  // -1. A warp reads one entry's at a time, every lane the same word: constant memory where the
  // module's bank holds them, else global memory through L1.
  std::vector<int> rest_slot(static_cast<size_t>(fs), -1);
  bool any_rest = false;
  if (rest) {
    for (int o = 0; o < no; ++o)
      for (int c = 0; c < ni; ++c)
        if (const int64_t k = rest->index(o, c); k >= 0) {
          rest_slot[size_t(o) * ni + c] = aux.rest(static_cast<int>(k));
          any_rest = true;
        }
  }
  const auto tables = [&](const std::string& qualifier) {
    std::ostringstream os;
    const auto table = [&](const char* name, const std::vector<int>& v) {
      os << qualifier << " int " << sym << name << "[" << fs << "] = {";
      for (size_t p = 0; p < v.size(); ++p) os << (p ? "," : "") << v[p];
      os << "};\n";
    };
    table("_k", de.slot);
    if (any_rest) table("_r", rest_slot);
    return os.str();
  };
  const size_t table_bytes = (any_rest ? 2 : 1) * size_t(fs) * sizeof(int);
  // Entry p of the element whose tiles dt and ax are at: as the other stores sum it, the
  // terms' sum, then each cut's part, then the rest's entry.
  std::ostringstream fn;
  fn << "DJ_FN double " << sym << "_entry(int p, const double* __restrict__ dt, "
     << "const double* __restrict__ ax) {\n"
     << "  const int o = p / " << ni << ", c = p - o * " << ni << ", k = " << sym << "_k[p];\n"
     << "  (void)o; (void)c;\n"
     << "  double v = k >= 0 ? dt[k * " << kTapeTile << "] : 0.0;\n";
  for (int i = 0; i < aux.n_cuts; ++i) {
    fn << "  v = v + ax[(" << aux.cut_sum(i, 0) << " + o) * " << kTapeTile << "] * ax[("
       << aux.cut_gradient(i, 0) << " + c) * " << kTapeTile << "];\n";
  }
  if (any_rest) {
    fn << "  const int r = " << sym << "_r[p];\n"
       << "  if (r >= 0) v = v + ax[r * " << kTapeTile << "];\n";
  }
  fn << "  return v;\n}\n";
  const std::string args_struct = out.args.struct_text(type);
  out.element_source = args_struct + "\n" + fn.str();
  const int64_t direct_tile = int64_t(de.count) * kTapeTile,
                aux_tile = int64_t(aux.size()) * kTapeTile;
  std::ostringstream cu;
  // s[j][element], rows of 33: a warp's stores of one entry, and its reads of an element's
  // run, meet no bank twice.
  cu << "extern \"C\" __global__ void __launch_bounds__(256) " << sym << "(const " << type
     << " a) {\n"
     << "  __shared__ double s[" << kRun << " * 33];\n"
     << "  const long long n = a.n_elements, tile = blockIdx.x / " << chunks << "LL;\n"
     << "  const int p0 = (int)(blockIdx.x - tile * " << chunks << "LL) * " << kRun << ";\n"
     << "  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;\n"
     << "  const int m = " << fs << " - p0 < " << kRun << " ? " << fs << " - p0 : " << kRun << ";\n"
     << "  const double* dt = a.direct + tile * " << direct_tile << "LL + lane;\n"
     << "  const double* ax = a.aux + tile * " << aux_tile << "LL + lane;\n"
     << "  for (int j = warp; j < m; j += 8) s[j * 33 + lane] = " << sym
     << "_entry(p0 + j, dt, ax);\n"
     << "  __syncthreads();\n"
     << "  const long long e0 = tile * 32;\n"
     << "  const int live = n - e0 < 32 ? (int)(n - e0) : 32;\n"
     << "  double* o = a.first + e0 * " << fs << "LL + p0;\n"
     << "  for (int q = threadIdx.x; q < live * " << kRun << "; q += 256) {\n"
     << "    const int el = q / " << kRun << ", j = q - el * " << kRun << ";\n"
     << "    if (j < m) o[el * " << fs << "LL + j] = s[j * 33 + el];\n"
     << "  }\n}\n";
  std::ostringstream host;
  host << "extern \"C\" void " << sym << "_host(const " << type << "* a) {\n"
       << "  for (long long e = 0; e < a->n_elements; ++e) {\n"
       << "    const double* dt = a->direct + (e / 32) * " << direct_tile << "LL + e % 32;\n"
       << "    const double* ax = a->aux + (e / 32) * " << aux_tile << "LL + e % 32;\n"
       << "    double* o = a->first + e * " << fs << "LL;\n"
       << "    for (int p = 0; p < " << fs << "; ++p) o[p] = " << sym << "_entry(p, dt, ax);\n"
       << "  }\n}\n";
  out.cuda_source =
      cuda_prelude() + "\n" + args_struct + "\n" +
      tables(table_bytes <= kConstantTableBytes ? "__constant__" : "__device__ const") + fn.str() +
      "\n" + cu.str();
  out.host_source = host_prelude() + "\n" + args_struct + "\n" + tables("static const") + fn.str() +
                    "\n" + host.str();
  out.launch.items = "n_elements";
  out.launch.items_per_block = 32;
  out.launch.block_threads = 256;
  out.launch.blocks_per_item_block = static_cast<int>(chunks);
  return out;
}

LoweredKernel lower_tape_aux(const Kernel& kernel, const TapeColumnPlan& plan,
                             const JacobianPattern& rest, const TapePattern& tapes, int parts) {
  const int64_t tape_size = tapes.size;
  const int ni = kernel.n_inputs();
  const TapeColumnsAux aux(plan, ni, &rest);
  const int nl = aux.n_linear, nc = aux.n_cuts, nf = aux.n_factors;
  if (plan.outputs.empty() || rest.n_rows != nl + nc + nf || rest.n_cols != ni || tape_size < 1 ||
      parts < 1 || parts > 32) {
    throw std::invalid_argument("kernel '" + kernel.name() + "': tape aux of " +
                                std::to_string(nl) + " linear outputs, " + std::to_string(nc) +
                                " cuts, " + std::to_string(nf) +
                                " factors against a rest "
                                "pattern of " +
                                std::to_string(rest.n_rows) + " x " + std::to_string(rest.n_cols) +
                                ", in " + std::to_string(parts) + " parts (1 to 32)");
  }
  LoweredKernel out = tape_launch(kernel, "tape_aux_p" + std::to_string(parts), tape_size);
  out.args
      .add({"rest_values", ArgKind::Pointer, "const double*", 1, true, "the rest kernel's values"})
      .add({"rest_first", ArgKind::Pointer, "const double*", 1, true,
            "the rest kernel's sparse Jacobian"})
      .add({"aux", ArgKind::Pointer, "double*", 1, true, "the tape columns' auxiliary slots"});
  const std::string type = "DjArgs_" + out.symbol;
  const std::string& sym = out.symbol;
  const auto rv = [nl, nc](int f) { return "rv[" + std::to_string((nl + nc + f) * 32) + "]"; };
  const auto ax_slot = [](int slot) { return "ax[" + std::to_string(slot * 32) + "]"; };
  // The copies: the factor products and the rest entries from the rest kernel's outputs, the
  // cuts' gradients from its sparse Jacobian (0 where it has no entry).
  std::vector<std::pair<int, std::string>> copies;  // (aux slot, what)
  for (int f = 0; f < nf; ++f) copies.push_back({aux.factor(f), rv(f)});
  for (int k = 0; k < aux.n_rest; ++k)
    copies.push_back({aux.rest(k), "rf[" + std::to_string(k * 32) + "]"});
  for (int i = 0; i < nc; ++i) {
    for (int j = 0; j < ni; ++j) {
      const int64_t k = rest.index(nl + i, j);
      copies.push_back(
          {aux.cut_gradient(i, j), k >= 0 ? "rf[" + std::to_string(k * 32) + "]" : "0.0"});
    }
  }
  const std::vector<EntryComposition> composition = compose_entries(plan.cut_group);
  const ColumnGroup& cg = plan.cut_group;
  const auto slot = [&cg](int st) {
    return "tp[" + std::to_string(cg.slots[static_cast<size_t>(st)] * 32) + "]";
  };
  // The cuts' sums over the tapes. Each plain entry, and each composed entry's terms that no
  // part covers, is an accumulator: its stored slots' terms first, then each derived component
  // computed once and added to every sum that reads it (computed first, some three hundred of
  // them for GRI-3.0 were live at once and spilled). The composed sums (compose_entries) last,
  // from the others'.
  const size_t ne = cg.entries.size();
  std::vector<std::vector<std::pair<size_t, const ColumnTerm*>>> uses(cg.derived.size());
  std::vector<std::vector<ColumnTerm>> stored(ne);
  for (size_t idx = 0; idx < ne; ++idx) {
    const EntryComposition& c = composition[idx];
    for (const ColumnTerm& t : c.parts.empty() ? cg.entries[idx].terms : c.rest) {
      if (size_t(t.staged) < cg.slots.size()) {
        stored[idx].push_back(t);
      } else {
        uses[size_t(t.staged) - cg.slots.size()].push_back({idx, &t});
      }
    }
  }
  // `target += d` for each sum that reads derived component k.
  const auto add_uses = [&](size_t k, const std::string& indent,
                            const std::function<std::string(size_t)>& target) {
    std::string text;
    for (const auto& [idx, t] : uses[k]) {
      const bool minus = t->scale < 0;
      const double scale = minus ? -t->scale : t->scale;
      text += indent + target(idx) + (minus ? " -= " : " += ") +
              (t->factor >= 0 ? rv(t->factor) + " * " : "") +
              (scale == 1.0 ? "d" : c_literal(scale) + " * d") + ";\n";
    }
    return text;
  };
  const auto composed_sum = [&](size_t idx, const std::function<std::string(int)>& value) {
    std::string sum;
    for (const ComposedPart& part : composition[idx].parts)
      sum += weighted(rv(part.factor), part.lambda, value(part.entry)) + " + ";
    return sum;
  };
  const auto cut_sum_slot = [&](size_t idx) {
    return ax_slot(aux.cut_sum(static_cast<int>(idx) / nl, static_cast<int>(idx) % nl));
  };
  // A warp per part of a tile's 32 elements on the GPU, so that a thread holds a part's
  // loads and sums (a thread an element held them all: 255 registers, the launch waiting on
  // its loads 84% of the time; GRI-3.0's took 0.30 ms at 1e5 cells on an H200, in 4 parts
  // 0.21: bench/RESULTS.md). The parts are runs of the derived components in tape order, of
  // about equal cost (neighbouring reactions share species, so a run adds to fewer sums than a
  // scatter would), the stored sums and the copies spread over them. Each sum is owned by the part
  // owning fewest among those that add to it, which after a barrier adds the other parts' partials
  // from shared memory and stores it; the composed sums after a second barrier, from the finished
  // sums their parts are composed of.
  std::vector<std::string> derived_code(cg.derived.size());
  std::vector<size_t> derived_cost(cg.derived.size());
  size_t total = 0;
  for (size_t k = 0; k < cg.derived.size(); ++k) {
    derived_code[k] = derived_text(tapes, cg.derived[k], "        ", "d");
    derived_cost[k] =
        size_t(std::count(derived_code[k].begin(), derived_code[k].end(), '\n')) + uses[k].size();
    total += derived_cost[k];
  }
  for (size_t idx = 0; idx < ne; ++idx) total += stored[idx].size();
  total += copies.size();
  const auto P = static_cast<size_t>(parts);
  std::vector<std::vector<size_t>> runs(P), stored_in(P), copied(P);
  std::vector<size_t> load(P, 0);
  {
    size_t p = 0;
    for (size_t k = 0; k < cg.derived.size(); ++k) {
      if (p + 1 < P && load[p] * P >= total) ++p;  // this run has its share
      runs[p].push_back(k);
      load[p] += derived_cost[k];
    }
  }
  const auto least = [&load] {
    return size_t(std::min_element(load.begin(), load.end()) - load.begin());
  };
  for (size_t idx = 0; idx < ne; ++idx) {
    if (stored[idx].empty()) continue;
    const size_t p = least();
    stored_in[p].push_back(idx);
    load[p] += stored[idx].size();
  }
  for (size_t c = 0; c < copies.size(); ++c) {
    const size_t p = least();
    copied[p].push_back(c);
    load[p] += 1;
  }
  std::vector<std::vector<bool>> adds(P, std::vector<bool>(ne, false));
  for (size_t p = 0; p < P; ++p) {
    for (size_t idx : stored_in[p]) adds[p][idx] = true;
    for (size_t k : runs[p])
      for (const auto& [idx, t] : uses[k]) adds[p][idx] = true;
  }
  std::vector<size_t> owner(ne), owns(P, 0);
  std::vector<std::vector<size_t>> owned(P);
  std::map<std::pair<size_t, size_t>, size_t> partial;  // (part, sum) -> shared slot
  for (size_t idx = 0; idx < ne; ++idx) {
    size_t best = P;
    for (size_t p = 0; p < P; ++p)
      if (adds[p][idx] && (best == P || owns[p] < owns[best])) best = p;
    owner[idx] = best == P ? idx % P : best;  // a sum no part adds to is zero
    ++owns[owner[idx]];
    owned[owner[idx]].push_back(idx);
    for (size_t p = 0; p < P; ++p)
      if (adds[p][idx] && p != owner[idx]) partial.try_emplace({p, idx}, partial.size());
  }
  std::map<size_t, size_t> finished;  // sum -> shared slot, for the composed sums' parts
  for (size_t idx = 0; idx < ne; ++idx)
    for (const ComposedPart& part : composition[idx].parts)
      finished.try_emplace(size_t(part.entry), partial.size() + finished.size());
  size_t max_owned = 1;
  for (const auto& o : owned) max_owned = std::max(max_owned, o.size());
  const auto own_at = [&owned](size_t p, size_t idx) {
    return "own[" +
           std::to_string(std::find(owned[p].begin(), owned[p].end(), idx) - owned[p].begin()) +
           "]";
  };
  const auto sh = [](size_t at) { return "S[" + std::to_string(at * 32) + "]"; };
  // Three phases, each a function over the part: its sums (partials to S, its own kept in
  // `own`), then, after a barrier, its owned sums finished, then the composed ones. The GPU runs
  // a phase on every warp at once; the host runs every part's phase in turn, the same text.
  const std::string params =
      "(int part, bool live, const double* __restrict__ tp, const double* __restrict__ rv, "
      "const double* __restrict__ rf, double* __restrict__ ax, double* S, double* own)";
  const std::string call = "(part, live, tp, rv, rf, ax, S, own)";
  std::ostringstream fn;
  const auto phase = [&](const char* name, const std::function<void(size_t)>& cases) {
    fn << "DJ_FN void " << sym << "_" << name << params << " {\n"
       << "  (void)live; (void)tp; (void)rv; (void)rf; (void)ax; (void)S; (void)own;\n"
       << "  switch (part) {\n";
    for (size_t p = 0; p < P; ++p) {
      fn << "    case " << p << ": {\n";
      cases(p);
      fn << "      break;\n    }\n";
    }
    fn << "  }\n}\n";
  };
  const auto sum_name = [](size_t idx) { return "c" + std::to_string(idx); };
  phase("sums", [&](size_t p) {
    for (size_t c : copied[p])
      fn << "      if (live) " << ax_slot(copies[c].first) << " = " << copies[c].second << ";\n";
    std::vector<std::string> init(ne);
    for (size_t idx : stored_in[p]) init[idx] = sum_text(stored[idx], slot, rv);
    for (size_t idx = 0; idx < ne; ++idx) {
      if (adds[p][idx])
        fn << "      double " << sum_name(idx) << " = " << (init[idx].empty() ? "0.0" : init[idx])
           << ";\n";
    }
    for (size_t k : runs[p]) {
      fn << "      {\n        double d;\n"
         << derived_code[k] << add_uses(k, "        ", sum_name) << "      }\n";
    }
    for (size_t idx = 0; idx < ne; ++idx) {
      if (!adds[p][idx]) {
        if (owner[idx] == p) fn << "      " << own_at(p, idx) << " = 0.0;\n";
        continue;
      }
      fn << "      " << (owner[idx] == p ? own_at(p, idx) : sh(partial.at({p, idx}))) << " = "
         << sum_name(idx) << ";\n";
    }
  });
  phase("owned", [&](size_t p) {
    for (size_t idx : owned[p]) {
      std::string others;
      for (size_t q = 0; q < P; ++q)
        if (q != p && adds[q][idx]) others += " + " + sh(partial.at({q, idx}));
      if (!others.empty())
        fn << "      " << own_at(p, idx) << " = " << own_at(p, idx) << others << ";\n";
      if (composition[idx].parts.empty())
        fn << "      if (live) " << cut_sum_slot(idx) << " = " << own_at(p, idx) << ";\n";
      if (const auto it = finished.find(idx); it != finished.end())
        fn << "      " << sh(it->second) << " = " << own_at(p, idx) << ";\n";
    }
  });
  phase("composed", [&](size_t p) {
    for (size_t idx : owned[p]) {
      if (composition[idx].parts.empty()) continue;
      fn << "      if (live) " << cut_sum_slot(idx) << " = "
         << composed_sum(idx, [&](int j) { return sh(finished.at(size_t(j))); }) << own_at(p, idx)
         << ";\n";
    }
  });
  const size_t shared_slots = partial.size() + finished.size();
  // The element's place in each buffer, from `tile` and `lane` and the argument block `a`
  // ("a." or "a->"). Every buffer holds whole tiles: a lane past the last element reads its
  // tile's padding and stores nothing.
  const auto locate = [&](const std::string& a, const std::string& indent) {
    std::ostringstream os;
    os << indent << "const double* __restrict__ tp = " << a << "tape + tile * " << tape_size * 32
       << "LL + lane;\n"
       << indent << "const double* __restrict__ rv = " << a << "rest_values + tile * "
       << int64_t{rest.n_rows} * 32 << "LL + lane;\n"
       << indent << "const double* __restrict__ rf = " << a << "rest_first + tile * "
       << rest.nnz() * 32 << "LL + lane;\n"
       << indent << "double* __restrict__ ax = " << a << "aux + tile * " << int64_t(aux.size()) * 32
       << "LL + lane;\n";
    return os.str();
  };
  std::ostringstream cu;
  cu << "extern \"C\" __global__ void __launch_bounds__(" << 32 * parts << ") " << sym << "(const "
     << type << " a) {\n"
     << "  extern __shared__ __align__(16) double sh[];\n"
     << "  const int lane = threadIdx.x & 31, part = threadIdx.x >> 5;\n"
     << "  const long long tile = blockIdx.x;\n"
     << "  const bool live = tile * 32 + lane < a.n_elements;\n"
     << locate("a.", "  ") << "  double* S = sh + lane;\n"
     << "  double own[" << max_owned << "];\n"
     << "  " << sym << "_sums" << call << ";\n"
     << "  __syncthreads();\n"
     << "  " << sym << "_owned" << call << ";\n";
  if (!finished.empty()) cu << "  __syncthreads();\n  " << sym << "_composed" << call << ";\n";
  cu << "}\n";
  // The host's: an element at a time, its column of a tile's shared slots and every part's
  // own sums in arrays of their own.
  std::ostringstream host;
  host << "extern \"C\" void " << sym << "_host(const " << type << "* a) {\n"
       << "  double* S = new double[" << std::max<size_t>(shared_slots, 1) * 32 << "];\n"
       << "  double owns[" << P * max_owned << "];\n"
       << "  const bool live = true;\n"
       << "  for (long long e = 0; e < a->n_elements; ++e) {\n"
       << "    const long long tile = e / 32, lane = e % 32;\n"
       << locate("a->", "    ");
  for (const char* name : {"sums", "owned", "composed"}) {
    if (std::string(name) == "composed" && finished.empty()) continue;
    host << "    for (int part = 0; part < " << P << "; ++part) {\n"
         << "      double* own = owns + part * " << max_owned << ";\n"
         << "      " << sym << "_" << name << call << ";\n"
         << "    }\n";
  }
  host << "  }\n  delete[] S;\n}\n";
  const std::string args_struct = out.args.struct_text(type);
  out.element_source = args_struct + "\n" + fn.str();
  out.cuda_source = cuda_prelude() + "\n" + out.element_source + "\n" + cu.str();
  out.host_source = host_prelude() + "\n" + out.element_source + "\n" + host.str();
  out.launch.items = "n_elements";
  out.launch.items_per_block = 32;
  out.launch.block_threads = 32 * parts;
  out.launch.dynamic_shared_bytes = shared_slots * 32 * sizeof(double);
  return out;
}

LoweredKernel lower_tape_gather(const Kernel& kernel, const TapePattern& tapes) {
  if (tapes.empty()) {
    throw std::invalid_argument("kernel '" + kernel.name() + "': no tapes to gather");
  }
  const int np = kernel.n_params();
  const int64_t nt = static_cast<int64_t>(tapes.tapes.size()), width = np + nt;
  LoweredKernel out = tape_launch(kernel, "tape_gather", tapes.size);
  out.args.add({"params", ArgKind::Pointer, "const double*", 1, np > 0, "per-element params"})
      .add({"out", ArgKind::Pointer, "double*", 1, true, "the rest kernel's params"});
  const std::string type = "DjArgs_" + out.symbol, &sym = out.symbol;
  std::ostringstream body;
  // Tiled as the tapes are: a warp's store of a param is one line.
  body << "  double* o = out + (e / 32) * " << width * 32 << "LL + e % 32;\n"
       << "  for (int i = 0; i < " << np << "; ++i) o[i * 32] = params[e * " << std::max(np, 1)
       << "LL + i];\n";
  for (int64_t t = 0; t < nt; ++t) {
    body << "  o[" << (np + t) * 32 << "] = tp[" << tapes.offset[static_cast<size_t>(t)] * 32
         << "];\n";
  }
  const std::string signature = "void " + sym +
                                "_one(long long e, const double* tp, const double* params, "
                                "double* out) {\n";
  const std::string locate = "(e / 32) * " + std::to_string(tapes.size * 32) + "LL + e % 32";
  const std::string args_struct = out.args.struct_text(type);
  out.element_source = args_struct;
  out.cuda_source = cuda_prelude() + "\n" + args_struct + "\n__device__ __forceinline__ " +
                    signature + body.str() + "}\nextern \"C\" __global__ void " + sym + "(const " +
                    type + " a) {\n  const long long e = (long long)blockIdx.x * 128 + " +
                    "threadIdx.x;\n  if (e < a.n_elements) " + sym + "_one(e, a.tape + " + locate +
                    ", a.params, a.out);\n}\n";
  out.host_source = host_prelude() + "\n" + args_struct + "\nstatic inline " + signature +
                    body.str() + "}\nextern \"C\" void " + sym + "_host(const " + type +
                    "* a) {\n  for (long long e = 0; e < a->n_elements; ++e) " + sym +
                    "_one(e, a->tape + " + locate + ", a->params, a->out);\n}\n";
  out.launch.items = "n_elements";
  out.launch.items_per_block = 128;
  out.launch.block_threads = 128;
  return out;
}

}  // namespace dualjit::jit
