// node-gather: one thread per node walks the node's incident elements (mesh::Incidence),
// evaluates each of them whole and adds the rows of the node's local vertex: into registers
// for the node's row of the residual, gradient or H v (stored once), or into the node's own row
// of blocks for the Hessian and the general Jacobian (each row has one writer, so plain adds).
// No atomics and a fixed order: bit-identical from run to run, like element-gather, but in
// one pass with nothing element-local in memory. Staged, a later term adds only the tile's
// nonzero entries.
// A Hessian kernel of a multi-vertex term can also evaluate the single-vertex terms (a
// per-vertex mass, gravity) at each of its nodes (InPlaceShape::node_terms) and add their
// blocks to the node's diagonal block, in the rows it stores anyway: those terms then cost
// their arithmetic and their inputs, with no kernel and no pass over the matrix of their own.
// A Hessian kernel can also sum each node's gradient row and its share of the energy from the
// same element results (InPlaceShape::with_energy_gradient): a Newton step's three outputs in
// the one pass. The price is recomputation: each element is evaluated once per vertex (k
// times), so it suits cheap elements (springs, triangles) more than expensive ones; the tuner
// decides. The CPU backend runs the same text over OpenMP.
#include <algorithm>
#include <memory>
#include <sstream>
#include <string>

#include "backends/assembly/strategies/emit_helpers.h"
#include "backends/assembly/strategies/in_place_driver.h"
#include "backends/assembly/strategies/units.h"
#include "jit/driver_text.h"
#include "jit/hessian_projection.h"

namespace dualjit::assembly {
namespace {

// A single-vertex term evaluated at the node (InPlaceShape::node_terms): its kernel is the
// lowering's companion of the same index (jit::LoweringOptions::companions).
struct NodeTerm {
  std::string name;
  InPlaceRules rules;
  // Element n is node n, for every node (a per-vertex mass): no incidence to walk, and its
  // params are read before the node's elements, so that their latency hides behind them.
  bool per_node = false;
};

// Whether `set` holds one single-vertex element per node, in node order.
bool one_element_per_node(const mesh::ElementSet& set, int64_t n_nodes) {
  if (set.k != 1 || set.size() != n_nodes) return false;
  for (int64_t i = 0; i < n_nodes; ++i) {
    if (set.conn[i] != i) return false;
  }
  return true;
}

class NodeGather : public InPlaceDriver {
 public:
  // tile_blocks > 0 (blocks only): staged, a GPU block's rows summed in shared memory of that
  // many blocks, then written out at once.
  NodeGather(InPlaceRules r, int block, int vertices, int64_t tile_blocks,
             std::vector<NodeTerm> node_terms)
      : InPlaceDriver(
            tile_blocks > 0 ? "staged-node-gather" : "node-gather",
            {tile_blocks > 0 ? "n_nodes" : "n_items", "node", "i", "node", "dynamic, 256"},
            std::move(r), block, vertices),
        tile_blocks_(tile_blocks),
        node_terms_(std::move(node_terms)) {}

  bool staged() const { return tile_blocks_ > 0; }
  std::string unit_suffix() const override {
    if (!blocks()) return "_ngr";
    int per_node = 0;
    for (const NodeTerm& t : node_terms_) per_node += t.per_node;
    const std::string with_terms = node_terms_.empty()
                                       ? ""
                                       : "n" + std::to_string(node_terms_.size()) +
                                             (per_node > 0 ? "p" + std::to_string(per_node) : "");
    if (!staged()) return "_ngb" + with_terms;
    return "_sngb" + std::to_string(tile_blocks_) + with_terms;
  }

  void check(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
             const std::string& kernel) const override {
    InPlaceDriver::check(s, plan, kernel);
    if (s.companions.size() != node_terms_.size()) {
      throw std::invalid_argument(kernel + ": node-gather evaluates " +
                                  std::to_string(node_terms_.size()) +
                                  " node terms, lowered with " +
                                  std::to_string(s.companions.size()) + " companion kernels");
    }
    for (size_t i = 0; i < node_terms_.size(); ++i) {
      for (int size : s.companions[i].slot_size) {
        if (s.slot_size.empty() || size != s.slot_size[0]) {
          throw std::invalid_argument(kernel + ": node term '" + node_terms_[i].name +
                                      "' reads a slot of " + std::to_string(size) +
                                      " values where the node holds " +
                                      std::to_string(s.slot_size.empty() ? 0 : s.slot_size[0]));
        }
      }
    }
  }

  std::vector<jit::ArgField> fields(const jit::DriverSpec& s) const override {
    std::vector<jit::ArgField> f = {
        {"n_nodes", jit::ArgKind::Int64, "", 1, false, "node count"},
        {"n_items", jit::ArgKind::Int64, "", 1, false, "visited node count"},
        {"active", jit::ArgKind::Pointer, "const int*", 1, false, "visited nodes"},
        {"inc_side", jit::ArgKind::Pointer, "const unsigned int*", 1, true,
         "incidence offsets by local vertex"},
        {"inc_element", jit::ArgKind::Pointer, "const int*", 1, true, "incident elements", false,
         true},
        {"inc_nodes", jit::ArgKind::Pointer, "const int*", 1, vertices() > 1,
         "incident elements' other nodes", false, true},
        {"out", jit::ArgKind::Pointer, "double*", 1, true, blocks() ? "block values" : "node rows"},
        {"accumulate", jit::ArgKind::Int64, "", 1, false, "accumulate flag"}};
    if (blocks()) {
      f.push_back({"row_ptr", jit::ArgKind::Pointer, "const int*", 1, true, "BSR row pointer"});
      f.push_back({"slots", jit::ArgKind::Pointer, "const int*", 1, true, "stored block slots",
                   false, true});
    }
    if (with_energy_gradient()) {
      f.push_back({"grad", jit::ArgKind::Pointer, "double*", 1, true, "gradient rows"});
      f.push_back({"node_energy", jit::ArgKind::Pointer, "double*", 1, true, "node energies"});
      f.push_back({"accumulate_eg", jit::ArgKind::Int64, "", 1, false,
                   "energy and gradient accumulate flag"});
    }
    if (!node_terms_.empty()) {
      f.push_back(
          {"diag_slot", jit::ArgKind::Pointer, "const int*", 1, true, "diagonal block slots"});
    }
    for (size_t i = 0; i < node_terms_.size(); ++i) {
      const jit::DriverSpec& c = s.companions[i];
      const std::string n = "n" + std::to_string(i) + "_",
                        of = " of node term '" + node_terms_[i].name + "'";
      f.push_back({n + "inc_side", jit::ArgKind::Pointer, "const unsigned int*", 1,
                   !node_terms_[i].per_node, "incidence offsets" + of});
      f.push_back({n + "inc_element", jit::ArgKind::Pointer, "const int*", 1, false,
                   "incident elements" + of});
      f.push_back({n + "params", jit::ArgKind::Pointer, "const double*", 1, false, "params" + of});
      f.push_back({n + "uniform", jit::ArgKind::Doubles, "", std::max(c.n_uniforms, 1),
                   c.n_uniforms > 0, "uniforms" + of, true});
    }
    return f;
  }

  std::string cuda_entry(const jit::DriverSpec& s, const jit::DerivativePlan& plan) const override {
    if (!staged()) return InPlaceDriver::cuda_entry(s, plan);
    const int T = s.layout.elements_per_block, BB = block() * block();
    std::ostringstream os;
    os << "extern \"C\" __global__ void __launch_bounds__(" << T << jit::bounds_min(s) << ") "
       << s.symbol << "(const " << s.args_type() << " a) {\n"
       << "  extern __shared__ double tile[];\n"
       << "  const long long n0 = (long long)blockIdx.x * " << T << ";\n"
       << "  const long long n1 = n0 + " << T << " < a.n_nodes ? n0 + " << T << " : a.n_nodes;\n"
       << "  const long long first = a.row_ptr[n0];\n"
       << "  const long long count = ((long long)a.row_ptr[n1] - first) * " << BB << ";\n"
       << "  for (long long i = threadIdx.x; i < count; i += " << T << ") tile[i] = 0.0;\n"
       << "  __syncthreads();\n"
       << (team_projection(s)
               ? "  " + s.symbol +
                     "_node(a, n0 + threadIdx.x < n1 ? n0 + threadIdx.x : n0, tile, first, n0 + "
                     "threadIdx.x < n1);\n"
               : "  if (n0 + threadIdx.x < n1) " + s.symbol +
                     "_node(a, n0 + threadIdx.x, tile, first);\n")
       << "  __syncthreads();\n"
       << "  double* out = a.out + first * " << BB << ";\n"
       << "  if (a.accumulate) {\n"
       << "    for (long long i = threadIdx.x; i < count; i += " << T
       << ") if (tile[i] != 0.0) out[i] += tile[i];\n"
       << "  } else {\n"
       << "    for (long long i = threadIdx.x; i < count; i += " << T << ") out[i] = tile[i];\n"
       << "  }\n}\n";
    return os.str();
  }

  std::string host_entry(const jit::DriverSpec& s, const jit::DerivativePlan& plan) const override {
    if (!staged()) return InPlaceDriver::host_entry(s, plan);
    const int T = s.layout.elements_per_block, BB = block() * block();
    std::ostringstream os;
    os << "#include <stdlib.h>\n"
       << "extern \"C\" void " << s.symbol << "_host(const " << s.args_type() << "* ap) {\n"
       << "  const " << s.args_type() << "& a = *ap;\n"
       << "  const long long tiles = (a.n_nodes + " << T - 1 << ") / " << T << ";\n"
       << "#pragma omp parallel for schedule(dynamic, 4)\n"
       << "  for (long long b = 0; b < tiles; ++b) {\n"
       << "    const long long n0 = b * " << T << ";\n"
       << "    const long long n1 = n0 + " << T << " < a.n_nodes ? n0 + " << T << " : a.n_nodes;\n"
       << "    const long long first = a.row_ptr[n0];\n"
       << "    const long long count = ((long long)a.row_ptr[n1] - first) * " << BB << ";\n"
       << "    double* tile = (double*)calloc(count > 0 ? count : 1, sizeof(double));\n"
       << "    for (long long node = n0; node < n1; ++node) " << s.symbol
       << "_node(a, node, tile, first" << (team_projection(s) ? ", true" : "") << ");\n"
       << "    double* out = a.out + first * " << BB << ";\n"
       << "    for (long long i = 0; i < count; ++i) {\n"
       << "      if (!a.accumulate) out[i] = tile[i];\n"
       << "      else if (tile[i] != 0.0) out[i] += tile[i];\n"
       << "    }\n"
       << "    free(tile);\n"
       << "  }\n}\n";
    return os.str();
  }

  jit::LaunchPolicy launch(const jit::DriverSpec& s) const override {
    jit::LaunchPolicy p = InPlaceDriver::launch(s);
    if (staged())
      p.dynamic_shared_bytes = size_t(tile_blocks_) * block() * block() * sizeof(double);
    return p;
  }

  std::string item_functions(const jit::DriverSpec& s) const override {
    const int B = block(), k = vertices(), BB = B * B;
    std::ostringstream os;
    // With a team projection every lane of the warp walks as many incident elements as the
    // warp's busiest node (dj_warp_any), computing on element 0's first incidence when it has
    // none left, and adds only what is real (`on`, `live`).
    const bool team = team_projection(s);
    const std::string if_live = team ? "if (live) " : "";
    // A node term's local Hessian is one block: each thread projects its own.
    for (size_t i = 0; i < node_terms_.size(); ++i) {
      if (node_terms_[i].rules.projection.active()) {
        os << jit::emit_projection_function(s.companions[i].symbol + "_project",
                                            s.companions[i].n_inputs,
                                            node_terms_[i].rules.projection);
      }
    }
    if (staged()) {
      os << "DJ_FN void " << s.symbol << "_node(const " << s.args_type()
         << "& a, long long node, double* tile, long long first" << (team ? ", bool live" : "")
         << ") {\n";
    } else {
      // Unstaged, thread i visits the i-th node that has elements when the launch says which
      // (a term that adds into rows others wrote), else node i.
      os << function_head(s) << "  const long long node = a.active ? (long long)a.active[i] : i;\n";
    }
    // Where a block's entries go: the node's rows in out, or in the tile.
    const std::string blocks_at = staged() ? "tile + ((long long)s - first) * " + std::to_string(BB)
                                           : "a.out + (long long)s * " + std::to_string(BB);
    // The node's own values, read once: every incident element has the node at its local vertex
    // lv, and its slots there copy them instead of loading (a third to a half of an element's
    // scattered loads for triangles and edges).
    os << jit::emit_own_loads(s, "node");
    for (size_t i = 0; i < node_terms_.size(); ++i) {
      const int np = s.companions[i].n_params;
      if (!node_terms_[i].per_node || np == 0) continue;
      const std::string n = "n" + std::to_string(i) + "_";
      os << "  double " << n << "p[" << np << "];\n";
      for (int j = 0; j < np; ++j)
        os << "  " << n << "p[" << j << "] = a." << n << "params[node * " << np << " + " << j
           << "];\n";
    }
    if (with_energy_gradient()) {
      os << "  double gacc[" << B << "] = {0};\n"
         << "  double eacc = 0.0;\n";
    }
    if (!blocks()) {
      os << "  double acc[" << B << "] = {0};\n";
    } else if (!staged()) {
      os << "  " << if_live << "if (!a.accumulate) {\n"
         << "    for (long long i = (long long)a.row_ptr[node] * " << BB
         << "; i < (long long)a.row_ptr[node + 1] * " << BB << "; ++i) a.out[i] = 0.0;\n  }\n";
    }
    // The node's entries are side-major (mesh::incidence_side_offsets): an entry's local
    // vertex is how many side boundaries lie at or below it, with nothing loaded per entry.
    const std::string live_or = team ? "live ? " : "";
    const std::string or_zero = team ? " : 0" : "";
    os << "  const unsigned int* side = a.inc_side + node * " << k << ";\n"
       << "  const long long q0 = " << live_or << "side[0]" << or_zero << ", q1 = " << live_or
       << "side[" << k << "]" << or_zero << ";\n";
    std::string side_of = "0";
    if (k > 1) {
      os << "  const long long";
      for (int v = 1; v < k; ++v)
        os << (v > 1 ? "," : "") << " b" << v << " = " << live_or << "side[" << v << "]" << or_zero;
      os << ";\n";
      side_of.clear();
      for (int v = 1; v < k; ++v)
        side_of += (v > 1 ? " + " : "") + std::string("(q >= b") + std::to_string(v) + ")";
    }
    if (team) {
      os << "  for (long long q = q0; dj_warp_any(q < q1); ++q) {\n"
         << "    const bool on = q < q1;\n"
         << "    const long long e = a.inc_element[on ? q : 0];\n"
         << "    const int lv = on ? " << side_of << " : -1;\n"
         << element_nodes("on ? q : 0") << element_results(s, "    ", "on", "en", "lv");
    } else {
      os << "  for (long long q = q0; q < q1; ++q) {\n"
         << "    const long long e = a.inc_element[q];\n"
         << "    const int lv = " << side_of << ";\n"
         << element_nodes("q") << element_results(s, "    ", "true", "en", "lv");
    }
    // Each element counts its energy once, at its local vertex 0 (every (element, local vertex)
    // pair is in the incidence exactly once). A lane with no incidence left has lv = -1: it
    // adds nothing.
    if (with_energy_gradient()) os << "    if (lv == 0) eacc += val[0];\n";
    os << "    switch (lv) {\n";
    for (int v = 0; v < k; ++v) {
      std::ostringstream body;
      if (has_gradient_row(v)) {
        for (int c = 0; c < B; ++c)
          body << "        gacc[" << c << "] += " << gradient_sum(v, c) << ";\n";
      }
      if (!blocks()) {
        if (!has_row(v)) continue;
        for (int c = 0; c < B; ++c)
          body << "        acc[" << c << "] += " << row_sum(v, c) << ";\n";
      } else {
        for (int vb = 0; vb < k; ++vb) {
          if (!has_block(v, vb)) continue;
          body << "        {\n          const int s = a.slots[(e * " << k << " + " << v << ") * "
               << k << " + " << vb << "];\n          if (s >= 0) {\n"
               << "            double* m = " << blocks_at << ";\n";
          const int64_t q0 = int64_t(v * k + vb) * BB;
          for (int j = 0; j < BB; ++j) {
            const std::string sum = entry_sum(q0 + j);
            if (!sum.empty()) body << "            m[" << j << "] += " << sum << ";\n";
          }
          body << "          }\n        }\n";
        }
      }
      if (body.str().empty()) continue;
      os << "      case " << v << ": {\n" << body.str() << "        break;\n      }\n";
    }
    os << "    }\n  }\n";
    // The node's own thread adds its diagonal block, inside the phase that fills its rows: a
    // separate pass over the tile would need one more barrier phase, which at this kernel's
    // occupancy (bounded by the tile) no other warp hides.
    if (team) os << "  if (!live) return;\n";
    for (size_t i = 0; i < node_terms_.size(); ++i) os << node_term(s, i, blocks_at);
    if (with_energy_gradient()) {
      os << "  double* g = a.grad + node * " << B << ";\n";
      for (int c = 0; c < B; ++c) {
        os << "  g[" << c << "] = a.accumulate_eg ? g[" << c << "] + gacc[" << c << "] : gacc[" << c
           << "];\n";
      }
      os << "  a.node_energy[node] = a.accumulate_eg ? a.node_energy[node] + eacc : eacc;\n";
    }
    if (!blocks()) {
      os << "  double* r = a.out + node * " << B << ";\n";
      for (int c = 0; c < B; ++c) {
        os << "  r[" << c << "] = a.accumulate ? r[" << c << "] + acc[" << c << "] : acc[" << c
           << "];\n";
      }
    }
    os << "}\n";
    return os.str();
  }

 private:
  // `int en[k]`: the element's nodes in local order, the node itself at its local vertex lv and
  // the others from the incidence (mesh::incidence_other_nodes) at entry `entry`. Every index
  // is a constant, so en stays in registers; a lane with no entry left (lv = -1) gets a valid
  // element's nodes and adds nothing.
  std::string element_nodes(const std::string& entry) const {
    const int k = vertices();
    std::ostringstream os;
    os << "    int en[" << k << "];\n";
    if (k == 1) {
      os << "    en[0] = (int)node;\n";
      return os.str();
    }
    os << "    const int* eo = a.inc_nodes + (" << entry << ") * " << k - 1 << ";\n";
    for (int v = 0; v < k; ++v) {
      os << "    en[" << v << "] = lv == " << v << " ? (int)node : ";
      if (v == 0) {
        os << "eo[0];\n";
      } else if (v == k - 1) {
        os << "eo[" << v - 1 << "];\n";
      } else {
        os << "lv < " << v << " ? eo[" << v - 1 << "] : eo[" << v << "];\n";
      }
    }
    return os.str();
  }

  // Node term i evaluated at `node`, once per element of its incidence there (a per-vertex
  // term has one; the side offsets of a single-vertex set are a row pointer by node): its inputs
  // are the node's own values, its energy and gradient go to eacc and gacc, its block to the
  // node's diagonal block at `blocks_at` (with `s` its slot).
  std::string node_term(const jit::DriverSpec& s, size_t i, const std::string& blocks_at) const {
    const jit::DriverSpec& c = s.companions[i];
    const InPlaceRules& r = node_terms_[i].rules;
    const int B = block(), BB = B * B;
    const std::string n = "a.n" + std::to_string(i) + "_";
    const auto dim = [](size_t m) { return std::to_string(std::max<size_t>(m, 1)); };
    std::ostringstream os;
    const bool per_node = node_terms_[i].per_node;
    if (per_node) {
      os << "  {\n";
    } else {
      os << "  for (long long q = " << n << "inc_side[node]; q < " << n
         << "inc_side[node + 1]; ++q) {\n"
         << "    const long long e = " << n << "inc_element[q];\n";
    }
    os << "    double x[" << dim(c.n_inputs) << "], v[1], p[" << dim(c.n_params) << "], u["
       << dim(c.n_uniforms) << "];\n";
    for (size_t slot = 0; slot < c.slot_size.size(); ++slot) {
      for (int k = 0; k < c.slot_size[slot]; ++k)
        os << "    x[" << c.slot_offset[slot] + k << "] = own_x[" << k << "];\n";
    }
    for (int j = 0; j < c.n_params; ++j) {
      os << "    p[" << j << "] = ";
      if (per_node) {
        os << "n" << i << "_p[" << j << "];\n";
      } else {
        os << n << "params[e * " << c.n_params << " + " << j << "];\n";
      }
    }
    for (int j = 0; j < c.n_uniforms; ++j)
      os << "    u[" << j << "] = " << n << "uniform[" << j << "];\n";
    os << "    double val[" << dim(c.n_outputs) << "], d1[" << dim(c.first_size) << "], d2["
       << dim(c.second_size) << "];\n";
    for (int k = 0; k < c.n_chunks; ++k) os << "    " << jit::chunk_call(c, k);
    if (r.projection.active()) os << "    " << c.symbol << "_project(d2);\n";
    if (with_energy_gradient()) {
      os << "    eacc += val[0];\n";
      const RowGather& g = r.gradient_rows;
      for (int k = 0; k < B; ++k) {
        const std::string sum = emit::signed_sum("d1", g.offset, g.sign, g.ptr[0], g.ptr[1], k);
        if (!sum.empty()) os << "    gacc[" << k << "] += " << sum << ";\n";
      }
    }
    os << "    {\n      const int s = a.diag_slot[node];\n      double* m = " << blocks_at << ";\n";
    const EntryGather& g = r.entries;
    for (int j = 0; j < BB; ++j) {
      const std::string sum =
          emit::signed_sum(r.source, g.offset, g.sign, g.ptr[j], g.ptr[j + 1], 0);
      if (!sum.empty()) os << "      m[" << j << "] += " << sum << ";\n";
    }
    os << "    }\n  }\n";
    return os.str();
  }

  int64_t tile_blocks_;
  std::vector<NodeTerm> node_terms_;
};

// Shared memory a GPU block has at most (sm_90: 227 KB per block).
constexpr size_t kMaxSharedBytes = 227 * 1024;

// Warps an SM holds of blocks of `rows` threads with `tile_bytes` of shared memory each, as far as
// shared memory and the thread and block limits decide (sm_90: 228 KB per SM, 1 KB of it
// reserved per block, 2048 threads, 32 blocks).
int64_t resident_warps(int64_t rows, size_t tile_bytes) {
  const int64_t by_shared = int64_t(228 * 1024) / int64_t(tile_bytes + 1024);
  const int64_t blocks = std::min({by_shared, 2048 / rows, int64_t(32)});
  return blocks * ((rows + 31) / 32);
}

class NodeGatherUnit : public InPlaceStrategy {
 public:
  explicit NodeGatherUnit(bool staged) : staged_(staged) {}
  ElementStrategy kind() const override {
    return staged_ ? ElementStrategy::StagedNodeGather : ElementStrategy::NodeGather;
  }
  jit::LoweringOptions lowering(const Term& t, Mode mode,
                                const InPlaceShape& shape) const override {
    jit::LoweringOptions o = in_place_lowering(t, mode, shape);
    const int block = shape.block;
    const std::string name(element_strategy_name(kind()));
    InPlaceRules rules = in_place_rules(t, mode, shape, name);
    int64_t tile = 0;
    // A term of single-vertex elements (a per-vertex mass) only touches each node's own blocks:
    // a tile of the matrix's rows would cost a pass over every row for a few entries each, so
    // there it runs unstaged (where no multi-vertex term evaluates it, InPlaceShape::node_terms).
    if (staged_ && rules.blocks() && t.elements.k > 1) {
      if (!shape.pattern) {
        throw ProblemError("term '" + t.name + "': " + name + " " + std::string(mode_name(mode)) +
                           ": needs the matrix's pattern to size its tiles");
      }
      // The most blocks any GPU block's consecutive rows hold; fewer nodes per block (down to
      // a warp) until that fits in shared memory.
      const std::vector<int64_t>& rp = shape.pattern->row_ptr();
      const int64_t n = shape.pattern->n_nodes();
      const auto tile_of = [&](int64_t T) {
        int64_t most = 1;
        for (int64_t n0 = 0; n0 < n; n0 += T)
          most = std::max(most, rp[std::min(n0 + T, n)] - rp[n0]);
        return most;
      };
      const auto bytes_of = [&](int64_t blocks) {
        return size_t(blocks) * block * block * sizeof(double);
      };
      int64_t T = shape.items_per_block;
      tile = tile_of(T);
      while (bytes_of(tile) > kMaxSharedBytes && T > 32) tile = tile_of(T /= 2);
      // The tile, not registers, bounds how many blocks an SM holds: halve the rows per block
      // while that keeps more warps resident (a spring grid's 7-block rows: 12 warps per SM at
      // 128 rows, 14 at 64; measured 6% faster, bench/RESULTS.md).
      for (int64_t half = T / 2; half >= 32 && half % 32 == 0; half /= 2) {
        const int64_t half_tile = tile_of(half);
        if (resident_warps(half, bytes_of(half_tile)) <= resident_warps(T, bytes_of(tile))) break;
        T = half;
        tile = half_tile;
      }
      o.layout.elements_per_block = static_cast<int>(T);
      const size_t bytes = bytes_of(tile);
      if (bytes > kMaxSharedBytes) {
        throw ProblemError("term '" + t.name + "': " + name + " " + std::string(mode_name(mode)) +
                           ": " + std::to_string(T) + " rows hold up to " + std::to_string(tile) +
                           " blocks, " + std::to_string(bytes) +
                           " bytes of shared memory (at most " + std::to_string(kMaxSharedBytes) +
                           "): fewer nodes per block");
      }
    }
    if (tile > 0) o.layout.min_blocks = 0;  // the tile sets the occupancy
    std::vector<NodeTerm> node_terms;
    if (!shape.node_terms.empty()) {
      if (mode != Mode::Hessian || t.elements.k == 1) {
        throw ProblemError("term '" + t.name + "': " + name + " " + std::string(mode_name(mode)) +
                           ": only the Hessian of a multi-vertex term evaluates node terms");
      }
      for (const Term* nt : shape.node_terms) {
        if (nt->elements.k != 1) {
          throw ProblemError("term '" + t.name + "': " + name + ": node term '" + nt->name +
                             "' has elements of " + std::to_string(nt->elements.k) +
                             " vertices (node terms have one)");
        }
        node_terms.push_back(
            {nt->name, in_place_rules(*nt, mode, shape, name),
             shape.pattern && one_element_per_node(nt->elements, shape.pattern->n_nodes())});
        o.companions.push_back(nt->kernel);
      }
    }
    o.driver = std::make_shared<NodeGather>(std::move(rules), block, t.elements.k, tile,
                                            std::move(node_terms));
    return o;
  }
  bool adds_to_output() const override { return false; }
  bool needs_incidence() const override { return true; }
  bool sums_energy_gradient() const override { return true; }
  bool evaluates_node_terms() const override { return true; }

 private:
  bool staged_;
  jit::ArgValues args(const jit::ElementLaunch& in, const InPlaceTarget& t) const override {
    jit::ArgValues a = in.inputs();
    a.set("n_nodes", t.n_nodes);
    // Only rows that others wrote can be skipped: the first term writes every row (and the
    // gradient and energy rows of a Hessian that sums them), touched or not. Staged kernels
    // tile every node and ignore the list.
    const bool visits_active = t.active && t.accumulate &&
                               (!t.gradient || t.accumulate_energy_gradient) &&
                               t.node_terms.empty();
    a.set("n_items", visits_active ? t.n_active : t.n_nodes);
    if (visits_active) a.set("active", t.active);
    a.set("inc_side", t.inc_side);
    a.set("inc_element", t.inc_element);
    a.set("inc_nodes", t.inc_nodes);
    a.set("out", t.out);
    a.set("accumulate", int64_t(t.accumulate ? 1 : 0));
    if (t.row_ptr) a.set("row_ptr", t.row_ptr);
    if (t.slots) a.set("slots", t.slots);
    if (t.gradient) a.set("grad", t.gradient);
    if (t.node_energy) {
      a.set("node_energy", t.node_energy);
      a.set("accumulate_eg", int64_t(t.accumulate_energy_gradient ? 1 : 0));
    }
    if (!t.node_terms.empty()) a.set("diag_slot", t.diagonal_slot);
    for (size_t i = 0; i < t.node_terms.size(); ++i) {
      const InPlaceTarget::NodeTerm& n = t.node_terms[i];
      const std::string p = "n" + std::to_string(i) + "_";
      a.set(p + "inc_side", n.inc_side);
      a.set(p + "inc_element", n.inc_element);
      a.set(p + "params", n.params);
      if (!n.uniforms.empty()) a.set_doubles(p + "uniform", n.uniforms);
    }
    return a;
  }
};

}  // namespace

std::shared_ptr<const InPlaceStrategy> units::node_gather() {
  return std::make_shared<NodeGatherUnit>(false);
}

std::shared_ptr<const InPlaceStrategy> units::staged_node_gather() {
  return std::make_shared<NodeGatherUnit>(true);
}

}  // namespace dualjit::assembly
