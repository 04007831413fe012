#include "jit/element_driver.h"

#include <sstream>

#include "jit/driver_text.h"

namespace dualjit::jit {
namespace {

class ElementLocalDriver : public Driver {
 public:
  // Whether an element runs its chunks in two phases: the values pass, then the rest.
  static bool phased(const DriverSpec& s) { return s.values_pass && s.n_chunks > 1; }

  std::string suffix() const override { return {}; }

  std::vector<ArgField> fields(const DriverSpec& s) const override {
    std::vector<ArgField> f = {
        {"values", ArgKind::Pointer, "double*", 1, s.n_outputs > 0, "values array"},
        {"first", ArgKind::Pointer, "double*", 1, s.first_size > 0, "first-derivative array"},
        {"second", ArgKind::Pointer, "double*", 1, s.second_size > 0, "second-derivative array"}};
    if (s.n_shared > 0) {
      f.push_back({"shared", ArgKind::Pointer, "double*", 1, true,
                   "shared values (n_shared x n_elements, component-major)", false, true});
    }
    return f;
  }

  std::string functions(const DriverSpec& s, const DerivativePlan&) const override {
    std::ostringstream os;
    os << "DJ_FN void " << s.symbol << "_element(const " << s.args_type()
       << "& a, long long e, int group, int groups" << (phased(s) ? ", int phase" : "") << ") {\n"
       << emit_element_loads(s);
    os << "  double* val = a.values + e * " << s.n_outputs << ";\n"
       << "  double* d1 = a.first + e * " << s.first_size << ";\n"
       << "  double* d2 = a.second + e * " << s.second_size << ";\n"
       << "  (void)d1; (void)d2; (void)group; (void)groups;\n";
    // Component-major: a warp's elements load each shared value in one coalesced access.
    if (s.n_shared > 0) os << "  double* w = a.shared + e;\n  const long long ws = a.n_elements;\n";
    if (s.n_chunks == 1) {
      os << "  " << chunk_call(s, 0);
    } else {
      // `group` is warp-uniform on the GPU, so the switch never diverges within a warp. In
      // phases, phase 0 runs the values pass (chunk 0), phase 1 the rest.
      const std::string first = phased(s) ? "(phase ? 1 : 0) + group" : "group";
      const std::string last = phased(s) ? "(phase ? " + std::to_string(s.n_chunks) + " : 1)"
                                         : std::to_string(s.n_chunks);
      os << "  for (int c = " << first << "; c < " << last << "; c += groups) {\n"
         << "    switch (c) {\n";
      for (int c = 0; c < s.n_chunks; ++c) {
        std::string call = chunk_call(s, c);
        call.pop_back();
        os << "      case " << c << ": " << call << " break;\n";
      }
      os << "    }\n  }\n";
    }
    os << "}\n";
    return os.str();
  }

  std::string cuda_entry(const DriverSpec& s, const DerivativePlan&) const override {
    const int t = s.layout.threads_per_element, b = s.layout.elements_per_block;
    std::ostringstream os;
    os << "extern \"C\" __global__ void __launch_bounds__(" << t * b << bounds_min(s) << ") "
       << s.symbol << "(const " << s.args_type() << " a) {\n"
       << "  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;\n"
       << "  const long long e = (long long)blockIdx.x * " << b << " + (warp / " << t
       << ") * 32 + lane;\n";
    if (!phased(s)) {
      os << "  if (e >= a.n_elements) return;\n"
         << "  " << s.symbol << "_element(a, e, warp % " << t << ", " << t << ");\n";
    } else {
      // An element's threads sit in one block: the barrier makes the values its pass stored
      // visible to the element's other warps (every thread reaches it: no early return).
      const std::string call = "  if (e < a.n_elements) " + s.symbol + "_element(a, e, warp % " +
                               std::to_string(t) + ", " + std::to_string(t) + ", ";
      os << call << "0);\n" << (t > 1 ? "  __syncthreads();\n" : "") << call << "1);\n";
    }
    os << "}\n";
    return os.str();
  }

  std::string host_entry(const DriverSpec& s, const DerivativePlan&) const override {
    std::ostringstream os;
    os << "extern \"C\" void " << s.symbol << "_host(const " << s.args_type() << "* a) {\n"
       << "  const long long n = a->n_elements;\n"
       << "#pragma omp parallel for schedule(static)\n";
    if (phased(s)) {
      os << "  for (long long e = 0; e < n; ++e) {\n"
         << "    " << s.symbol << "_element(*a, e, 0, 1, 0);\n"
         << "    " << s.symbol << "_element(*a, e, 0, 1, 1);\n"
         << "  }\n";
    } else {
      os << "  for (long long e = 0; e < n; ++e) " << s.symbol << "_element(*a, e, 0, 1);\n";
    }
    os << "}\n";
    return os.str();
  }

  LaunchPolicy launch(const DriverSpec& s) const override {
    LaunchPolicy p;
    p.items = "n_elements";
    p.items_per_block = s.layout.elements_per_block;
    p.block_threads = s.layout.block_threads();
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
  if (shared) a.set("shared", shared);
  return a;
}

std::shared_ptr<const Driver> element_local_driver() {
  static const auto driver = std::make_shared<const ElementLocalDriver>();
  return driver;
}

}  // namespace dualjit::jit
