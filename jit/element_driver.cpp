#include "jit/element_driver.h"

#include <sstream>

#include "jit/driver_text.h"
#include "jit/tape_pattern.h"

namespace dualjit::jit {
namespace {

class ElementLocalDriver : public Driver {
 public:
  std::string suffix() const override { return {}; }

  std::vector<ArgField> fields(const DriverSpec& s) const override {
    std::vector<ArgField> f = {
        {"values", ArgKind::Pointer, "double*", 1, s.n_outputs > 0, "values array"},
        {"first", ArgKind::Pointer, "double*", 1, s.first_size > 0, "first-derivative array"},
        {"second", ArgKind::Pointer, "double*", 1, s.second_size > 0, "second-derivative array"}};
    if (s.tape_size > 0)
      f.push_back({"tape", ArgKind::Pointer, "double*", 1, true, "tape buffer", false, true});
    return f;
  }

  std::string functions(const DriverSpec& s, const DerivativePlan&) const override {
    const bool staged = is_staged(s.first_stores);
    std::ostringstream os;
    if (staged) os << flush_function(s);
    // Staged: e0 is the first element of the warp's (the host's: e itself), st the warp's stage.
    os << "DJ_FN void " << s.symbol << "_element(const " << s.args_type()
       << "& a, long long e, int group, int groups"
       << (staged ? ", long long e0, double* __restrict__ st" : "") << ") {\n"
       << emit_element_loads(s);
    if (s.tiled_values) {
      os << "  double* val = a.values + (e / " << kFirstTile << ") * " << kFirstTile * s.n_outputs
         << "LL + e % " << kFirstTile << ";\n";
    } else {
      os << "  double* val = a.values + e * " << s.n_outputs << ";\n";
    }
    switch (s.first_stores) {
      case FirstStores::Direct:
        os << "  double* d1 = a.first + e * " << s.first_size << ";\n";
        break;
      case FirstStores::Tiled:  // [tile][entry][element of the tile]
        os << "  double* d1 = a.first + (e / " << kFirstTile << ") * " << kFirstTile * s.first_size
           << " + e % " << kFirstTile << ";\n";
        break;
      case FirstStores::Staged:
      case FirstStores::StagedComponentMajor:
        os << "  double* d1 = st;\n";
        break;
    }
    os << "  double* d2 = a.second + e * " << s.second_size << ";\n"
       << "  (void)d1; (void)d2; (void)group; (void)groups;\n";
    if (s.tape_size > 0) {  // tiles of kTapeTile elements (jit/tape_pattern.h)
      os << "  double* tp = a.tape + (e / " << kTapeTile << ") * " << kTapeTile * s.tape_size
         << "LL + e % " << kTapeTile << ";\n";
    }
    // Chunk c's call, and under staging the warp's writing of its range.
    const auto call = [&](int c) {
      std::string t = chunk_call(s, c);
      t.pop_back();
      if (staged && s.stage[c].len > 0) {
        t += " " + s.symbol + "_flush<" + std::to_string(s.stage[c].lo) + "LL, " +
             std::to_string(s.stage[c].len) + ">(a, e0, st);";
      }
      return t;
    };
    if (s.n_chunks == 1) {
      os << "  " << call(0) << "\n";
    } else {
      // `group` is warp-uniform on the GPU, so the switch never diverges within a warp.
      os << "  for (int c = group; c < " << s.n_chunks << "; c += groups) {\n"
         << "    switch (c) {\n";
      for (int c = 0; c < s.n_chunks; ++c)
        os << "      case " << c << ": " << call(c) << " break;\n";
      os << "    }\n  }\n";
    }
    os << "}\n";
    return os.str();
  }

  // Writes entries [LO, LO + LEN) of the warp's elements from the stage (jit/first_stage.h)
  // and leaves the stage free for the next chunk. Element-major: consecutive lanes on
  // consecutive entries of an element; component-major: each lane its own element's entries,
  // the warp's 32 elements of an entry consecutive.
  static std::string flush_function(const DriverSpec& s) {
    std::ostringstream os;
    if (s.first_stores == FirstStores::StagedComponentMajor) {
      os << "template <long long LO, int LEN>\n"
         << "DJ_FN void " << s.symbol << "_flush(const " << s.args_type()
         << "& a, long long e0, double* __restrict__ st) {\n"
         << "  const int lane = dj_lane();\n"
         << "  if (e0 + lane >= a.n_elements) return;\n"
         << "  for (int k = 0; k < LEN; ++k)\n"
         << "    a.first[(LO + k) * a.n_elements + e0 + lane] = st[k * 32 + (lane ^ (k & 31))];\n"
         << "}\n";
      return os.str();
    }
    os << "template <long long LO, int LEN>\n"
       << "DJ_FN void " << s.symbol << "_flush(const " << s.args_type()
       << "& a, long long e0, double* __restrict__ st) {\n"
       << "#ifdef __CUDA_ARCH__\n"
       << "  __syncwarp();\n"
       << "  const int lane = threadIdx.x & 31;\n"
       << "  for (int j = lane; j < 32 * LEN; j += 32) {\n"
       << "    const int i = j / LEN, k = j - i * LEN;\n"
       << "    if (e0 + i < a.n_elements)\n"
       << "      a.first[(e0 + i) * " << s.first_size
       << "LL + LO + k] = st[k * 32 + (i ^ (k & 31))];\n"
       << "  }\n"
       << "  __syncwarp();\n"
       << "#else\n"
       << "  for (int k = 0; k < LEN; ++k) a.first[e0 * " << s.first_size
       << "LL + LO + k] = st[k * 32 + (k & 31)];\n"
       << "#endif\n"
       << "}\n";
    return os.str();
  }

  std::string cuda_entry(const DriverSpec& s, const DerivativePlan&) const override {
    const int t = s.layout.threads_per_element, b = s.layout.elements_per_block;
    std::ostringstream os;
    os << "extern \"C\" __global__ void __launch_bounds__(" << t * b << bounds_min(s) << ") "
       << s.symbol << "(const " << s.args_type() << " a) {\n"
       << "  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;\n";
    // The chunk a thread runs first, and the stride to its next (`group`, `groups`).
    std::string group = "warp % " + std::to_string(t), groups = std::to_string(t);
    if (s.layout.side_by_side) {  // t == 1: the block's one chunk (launch())
      const std::string g = std::to_string(s.n_chunks);
      os << "  const int chunk = blockIdx.x % " << g << ";\n"
         << "  const long long e = (long long)(blockIdx.x / " << g << ") * " << b
         << " + warp * 32 + lane;\n";
      group = "chunk", groups = g;
    } else {
      os << "  const long long e = (long long)blockIdx.x * " << b << " + (warp / " << t
         << ") * 32 + lane;\n";
    }
    if (!is_staged(s.first_stores)) {
      os << "  if (e >= a.n_elements) return;\n"
         << "  " << s.symbol << "_element(a, e, " << group << ", " << groups << ");\n";
    } else {
      // Every lane of a warp with elements writes the stage out, so a lane past the last element
      // computes the last element again (its values' stores repeat the same bits) and its
      // entries are not written.
      os << "  extern __shared__ double dj_stage[];\n"
         << "  const long long e0 = e - lane;\n"
         << "  if (e0 >= a.n_elements) return;\n"
         << "  " << s.symbol << "_element(a, e < a.n_elements ? e : a.n_elements - 1, " << group
         << ", " << groups << ", e0, dj_stage + warp * " << 32 * s.stage_entries << "LL);\n";
    }
    os << "}\n";
    return os.str();
  }

  std::string host_entry(const DriverSpec& s, const DerivativePlan&) const override {
    std::ostringstream os;
    os << "extern \"C\" void " << s.symbol << "_host(const " << s.args_type() << "* a) {\n"
       << "  const long long n = a->n_elements;\n"
       << "#pragma omp parallel for schedule(static)\n";
    if (!is_staged(s.first_stores)) {
      os << "  for (long long e = 0; e < n; ++e) " << s.symbol << "_element(*a, e, 0, 1);\n";
    } else {  // a warp of one lane: its element's stage
      os << "  for (long long e = 0; e < n; ++e) {\n"
         << "    double st[" << 32 * s.stage_entries << "];\n"
         << "    " << s.symbol << "_element(*a, e, 0, 1, e, st);\n"
         << "  }\n";
    }
    os << "}\n";
    return os.str();
  }

  LaunchPolicy launch(const DriverSpec& s) const override {
    LaunchPolicy p;
    p.items = "n_elements";
    p.items_per_block = s.layout.elements_per_block;
    p.block_threads = s.layout.block_threads();
    if (s.layout.side_by_side) p.blocks_per_item_block = s.n_chunks;
    if (is_staged(s.first_stores))
      p.dynamic_shared_bytes = stage_bytes(p.block_threads, s.stage_entries);
    return p;
  }
};

}  // namespace

ArgValues ElementLaunch::inputs() const {
  ArgValues a;
  a.set("n_elements", n_elements);
  a.set("conn", conn);
  a.set("vertices_per_element", vertices_per_element);
  a.set("field", std::vector<const void*>(fields.begin(), fields.end()));
  if (!directions.empty())
    a.set("direction", std::vector<const void*>(directions.begin(), directions.end()));
  a.set("params", params);
  a.set_doubles("uniform", uniforms);
  return a;
}

ArgValues ElementLaunch::args() const {
  ArgValues a = inputs();
  a.set("values", values);
  a.set("first", first);
  a.set("second", second);
  if (tape) a.set("tape", tape);
  return a;
}

std::shared_ptr<const Driver> element_local_driver() {
  static const auto driver = std::make_shared<const ElementLocalDriver>();
  return driver;
}

}  // namespace dualjit::jit
