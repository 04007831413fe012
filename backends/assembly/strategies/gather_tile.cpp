#include "backends/assembly/strategies/gather_tile.h"

#include <algorithm>
#include <sstream>

#include "backends/assembly/problem.h"
#include "backends/mesh/side_incidence.h"
#include "jit/driver_text.h"
#include "jit/emit_element.h"

namespace dualjit::assembly::emit {

FusedSpec TiledGatherStrategy::normalised(FusedSpec s) {
  s.off_direct = s.single_writer && s.jacobian;
  s.store_rows = s.first_term;
  s.pre_reduce = false;
  return s;
}

std::string TiledGatherStrategy::tile_letters() const {
  return std::string("s") + (spec().off_direct ? "d" : "") + (spec().store_rows ? "o" : "");
}

void TiledGatherStrategy::check_tile(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
                                     const std::string& kernel) const {
  check_gather(*this, s, plan, kernel);
  if (s.layout.threads_per_element != 1)
    fail(kernel, "the staged gather runs one element per thread (layout 1xT)");
}

GatherShared gather_shared(const jit::DriverSpec& s, const FusedSpec& a) {
  const int T = s.layout.elements_per_block, k = a.vertices, B = a.block;
  const int nodes = gather_max_nodes(T), ks = std::max(k - 1, 1);
  GatherShared g;
  g.values = k * T * (std::max(s.n_outputs, 1) | 1);
  g.d1 = a.jacobian ? T * (static_cast<int>(s.first_size) | 1) : 0;
  g.racc = k * nodes * B;
  g.dacc = a.jacobian ? k * nodes * B * B : 0;
  g.runs = k * (nodes + 1);
  g.slots = a.jacobian ? k * T * ks : 0;
  return g;
}

std::string side_function(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
                          const FusedSpec& a) {
  const std::vector<int> chunk_of = chunk_of_vertex(s, plan, a);
  std::ostringstream os;
  os << "DJ_FN void " << s.symbol << "_side(const " << s.args_type()
     << "& a, long long e, int lv, double* __restrict__ val, double* __restrict__ d1) {\n"
     << jit::emit_element_loads(s) << "  double d2[1];\n  (void)d2;\n  switch (lv) {\n";
  for (int lv = 0; lv < a.vertices; ++lv)
    os << "    case " << lv << ": " << jit::chunk_call(s, std::max(chunk_of[lv], 0))
       << "      break;\n";
  os << "  }\n}\n";
  return os.str();
}

std::vector<jit::ArgField> gather_tile_fields(const FusedSpec& a) {
  using jit::ArgKind;
  return {{"side_ptr", ArgKind::Pointer, "const long long*", 1, true, "side incidence offsets"},
          {"side_element", ArgKind::Pointer, "const int*", 1, true, "side incidence elements",
           false, true},
          {"side_slot", ArgKind::Pointer, "const int*", 1, a.jacobian && a.vertices > 1,
           "side incidence off-diagonal slots", false, true},
          {"node_blocks", ArgKind::Pointer, "const long long*", 1, true, "node blocks"},
          {"n_nodes", ArgKind::Int64, "", 1, false, "node count"},
          {"n_node_blocks", ArgKind::Int64, "", 1, false, "node block count"}};
}

TermStructure gather_tile_structure(const TermContext& t, const FusedSpec& a) {
  const mesh::SideIncidence side =
      mesh::build_side_incidence(t.problem.n_nodes(), t.problem.term(t.term).elements,
                                 a.jacobian ? t.element_slots : std::span<const int64_t>{});
  const int tile = t.kernel.options.layout.block_threads();
  // A term that stores rows covers every node; one that adds skips nodes it never touches (a
  // far-field term: only the boundary nodes).
  const auto blocks = mesh::node_blocks(side, tile, gather_max_nodes(tile), a.store_rows);
  TermStructure out;
  out.add("side_ptr", side.ptr);
  out.add("side_element", side.element);
  if (!side.slot.empty()) out.add("side_slot", side.slot);
  out.add("node_blocks", blocks);
  out.counts.emplace_back("n_nodes", t.problem.n_nodes());
  out.counts.emplace_back("n_node_blocks", static_cast<int64_t>(blocks.size()) / 2);
  return out;
}

GatherTile::GatherTile(const jit::DriverSpec& spec, const FusedSpec& as)
    : s(spec),
      a(as),
      T(spec.layout.block_threads()),
      K(as.vertices),
      B(as.block),
      BB(as.block * as.block),
      nodes(gather_max_nodes(T)),
      ks(std::max(K - 1, 1)),
      d1_stride(static_cast<int>(spec.first_size) | 1),  // as in gather_shared
      out_stride(std::max(spec.n_outputs, 1) | 1),
      mem(gather_shared(spec, as)),
      sides(K) {
  for (int lv = 0; lv < K; ++lv) {
    Side& sd = sides[lv];
    sd.slot = a.jacobian ? slot_of_vertex(s, lv) : -1;
    for (size_t o = 0; o < a.output_scatter.size(); ++o) {
      for (const auto& [vx, sign] : a.output_scatter[o]) {
        const StagedUnit row{false, static_cast<int>(o), vx, 0, lv, sign};
        const StagedUnit blk{true, static_cast<int>(o), vx, std::max(sd.slot, 0), lv, sign};
        const std::string sg = jit::c_literal(sign) + " * ";
        // Each side's values have their own area (every chunk writes them); the Jacobian
        // columns of different sides are disjoint, so the sides share one d1 row.
        const std::string row_src =
            staged_source(row, "f", B, s.n_inputs, d1_stride, out_stride, values_of(lv) + " + ");
        const std::string blk_src = staged_source(blk, "f", B, s.n_inputs, d1_stride, out_stride);
        if (vx == lv) {
          sd.rows.push_back(sg + row_src);
          if (sd.slot >= 0) sd.diag.push_back(sg + blk_src);
          continue;
        }
        if (sd.slot < 0) continue;
        const std::string target = "off[(long long)dj_slot[" + std::to_string(lv * T * ks) +
                                   " + f * " + std::to_string(ks) + " + " +
                                   std::to_string(vx < lv ? vx : vx - 1) + "] * " +
                                   std::to_string(BB) + " + q]";
        if (a.off_direct) {
          sd.offs += "      " + target + " = (" + off_type(a) + ")(" + sg + blk_src + ");\n";
        } else {
          sd.offs += "      dj_atomic_add(&" + target + ", " + sg + blk_src + ");\n";
        }
      }
    }
  }
}

std::string GatherTile::node_block(const std::string& nb, const std::string& in) const {
  std::ostringstream os;
  os << in << "const long long n0 = a.node_blocks[2 * " << nb << "], n1 = a.node_blocks[2 * " << nb
     << " + 1];\n"
     << in << "const int nn = (int)(n1 - n0);\n"
     << in << "long long n_tiles = 0;\n";
  for (int lv = 0; lv < K; ++lv) {
    const std::string l = std::to_string(lv);
    os << in << "const long long* ptr" << l << " = a.side_ptr + " << l << " * (a.n_nodes + 1);\n"
       << in << "const long long start" << l << " = ptr" << l << "[n0], end" << l << " = ptr" << l
       << "[n1];\n"
       << in << "if ((end" << l << " - start" << l << " + " << T - 1 << ") / " << T
       << " > n_tiles) n_tiles = (end" << l << " - start" << l << " + " << T - 1 << ") / " << T
       << ";\n";
  }
  return os.str();
}

std::string GatherTile::zero_sums(const std::string& tid, int threads,
                                  const std::string& in) const {
  std::ostringstream os;
  for (int lv = 0; lv < K; ++lv) {
    os << in << "for (int i = " << tid << "; i < nn * " << B << "; i += " << threads << ") dj_racc["
       << lv * nodes * B << " + i] = 0.0;\n";
    if (a.jacobian)
      os << in << "for (int i = " << tid << "; i < nn * " << BB << "; i += " << threads
         << ") dj_dacc[" << lv * nodes * BB << " + i] = 0.0;\n";
  }
  return os.str();
}

std::string GatherTile::tile_range(const std::string& in) const {
  std::ostringstream os;
  for (int lv = 0; lv < K; ++lv) {
    const std::string l = std::to_string(lv);
    os << in << "const long long base" << l << " = start" << l << " + tile * " << T << ";\n"
       << in << "const int here" << l << " = (int)(end" << l << " - base" << l << " < 0 ? 0 : end"
       << l << " - base" << l << " < " << T << " ? end" << l << " - base" << l << " : " << T
       << ");\n";
  }
  return os.str();
}

std::string GatherTile::runs_and_slots(const std::string& tid, int threads,
                                       const std::string& in) const {
  std::ostringstream os;
  for (int lv = 0; lv < K; ++lv) {
    const std::string l = std::to_string(lv);
    os << in << "for (int m = " << tid << "; m <= nn; m += " << threads << ") {\n"
       << in << "  const long long r = ptr" << l << "[n0 + m] - base" << l << ";\n"
       << in << "  dj_run[" << lv * (nodes + 1) << " + m] = (int)(r < 0 ? 0 : r > here" << l
       << " ? here" << l << " : r);\n"
       << in << "}\n";
    if (!sides[lv].offs.empty()) {
      os << in << "for (int i = " << tid << "; i < here" << l << " * " << ks << "; i += " << threads
         << ") dj_slot[" << lv * T * ks << " + i] = a.side_slot[base" << l << " * " << ks
         << " + i];\n";
    }
  }
  return os.str();
}

std::string GatherTile::run_side(int lv, const std::string& f) const {
  const std::string l = std::to_string(lv);
  return s.symbol + "_side(a, (long long)a.side_element[base" + l + " + " + f + "], " + l +
         ", dj_val + " + values_of(lv) + " + " + f + " * " + std::to_string(out_stride) + ", " +
         (a.jacobian ? "dj_d1 + " + f + " * " + std::to_string(d1_stride)
                     : std::string("nullptr")) +
         ");\n";
}

std::string GatherTile::write_out(const std::string& tid, int threads,
                                  const std::string& in) const {
  std::ostringstream os;
  for (int lv = 0; lv < K; ++lv) {
    if (sides[lv].offs.empty()) continue;
    os << in << "#pragma unroll 4\n"
       << in << "for (int i = " << tid << "; i < here" << lv << " * " << BB << "; i += " << threads
       << ") {\n"
       << in << "  const int f = i / " << BB << ", q = i - f * " << BB << ";\n"
       << in << "  const int row = q / " << B << ", col = q - row * " << B << ";\n"
       << sides[lv].offs << in << "}\n";
  }
  return os.str();
}

std::string GatherTile::reduce(const std::string& tid, int threads, const std::string& in) const {
  std::ostringstream os;
  for (bool blocks : {false, true}) {
    const int width = blocks ? BB : B;
    const std::string acc = blocks ? "dj_dacc" : "dj_racc";
    std::ostringstream body;
    for (int lv = 0; lv < K; ++lv) {
      const auto& terms = blocks ? sides[lv].diag : sides[lv].rows;
      if (terms.empty()) continue;
      const int r = lv * (nodes + 1);
      const std::string side_acc = acc + "[" + std::to_string(lv * nodes * width) + " + i]";
      body << in << "  { double s = " << side_acc << ";\n"
           << in << "    for (int f = dj_run[" << r << " + m]; f < dj_run[" << r
           << " + m + 1]; ++f) {";
      for (const std::string& t : terms) body << " s += " << t << ";";
      body << " }\n" << in << "    " << side_acc << " = s; }\n";
    }
    if (body.str().empty()) continue;
    os << in << "for (int i = " << tid << "; i < nn * " << width << "; i += " << threads << ") {\n"
       << in << "  const int m = i / " << width << ", q = i - m * " << width << ";\n";
    if (blocks) os << in << "  const int row = q / " << B << ", col = q - row * " << B << ";\n";
    os << body.str() << in << "}\n";
  }
  return os.str();
}

std::string GatherTile::store_rows(const std::string& tid, int threads,
                                   const std::string& in) const {
  const auto total = [&](bool blocks) {
    const int width = blocks ? BB : B;
    const std::string acc = blocks ? "dj_dacc" : "dj_racc";
    std::string sum = "double tot = 0.0;";
    for (int lv = 0; lv < K; ++lv) {
      if (!(blocks ? sides[lv].diag : sides[lv].rows).empty())
        sum += " tot += " + acc + "[" + std::to_string(lv * nodes * width) + " + i];";
    }
    return sum;
  };
  const std::string op = a.store_rows ? " = " : " += ";
  std::ostringstream os;
  os << in << "for (int i = " << tid << "; i < nn * " << B << "; i += " << threads << ") { "
     << total(false) << " a.residual[n0 * " << B << " + i]" << op << "tot; }\n";
  if (a.jacobian) {
    os << in << "for (int i = " << tid << "; i < nn * " << BB << "; i += " << threads << ") { "
       << total(true) << " a.diag[n0 * " << BB << " + i]" << op << "tot; }\n";
  }
  return os.str();
}

}  // namespace dualjit::assembly::emit
