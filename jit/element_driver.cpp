#include "jit/element_driver.h"

#include <sstream>

#include "jit/driver_text.h"

namespace dualjit::jit {
namespace {

class ElementLocalDriver : public Driver {
 public:
  std::string suffix() const override { return {}; }

  std::vector<ArgField> fields(const DriverSpec& s) const override {
    return {
        {"values", ArgKind::Pointer, "double*", 1, s.n_outputs > 0, "values array"},
        {"first", ArgKind::Pointer, "double*", 1, s.first_size > 0, "first-derivative array"},
        {"second", ArgKind::Pointer, "double*", 1, s.second_size > 0, "second-derivative array"}};
  }

  std::string functions(const DriverSpec& s, const DerivativePlan&) const override {
    std::ostringstream os;
    os << "DJ_FN void " << s.symbol << "_element(const " << s.args_type()
       << "& a, long long e, int group, int groups) {\n"
       << emit_element_loads(s);
    os << "  double* val = a.values + e * " << s.n_outputs << ";\n";
    if (s.tiled_first) {  // [tile][entry][element of the tile]
      os << "  double* d1 = a.first + (e / " << kFirstTile << ") * " << kFirstTile * s.first_size
         << " + e % " << kFirstTile << ";\n";
    } else {
      os << "  double* d1 = a.first + e * " << s.first_size << ";\n";
    }
    os << "  double* d2 = a.second + e * " << s.second_size << ";\n"
       << "  (void)d1; (void)d2; (void)group; (void)groups;\n";
    if (s.n_chunks == 1) {
      os << "  " << chunk_call(s, 0);
    } else {
      // `group` is warp-uniform on the GPU, so the switch never diverges within a warp.
      os << "  for (int c = group; c < " << s.n_chunks << "; c += groups) {\n"
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
       << ") * 32 + lane;\n"
       << "  if (e >= a.n_elements) return;\n"
       << "  " << s.symbol << "_element(a, e, warp % " << t << ", " << t << ");\n"
       << "}\n";
    return os.str();
  }

  std::string host_entry(const DriverSpec& s, const DerivativePlan&) const override {
    std::ostringstream os;
    os << "extern \"C\" void " << s.symbol << "_host(const " << s.args_type() << "* a) {\n"
       << "  const long long n = a->n_elements;\n"
       << "#pragma omp parallel for schedule(static)\n"
       << "  for (long long e = 0; e < n; ++e) " << s.symbol << "_element(*a, e, 0, 1);\n"
       << "}\n";
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
  return a;
}

std::shared_ptr<const Driver> element_local_driver() {
  static const auto driver = std::make_shared<const ElementLocalDriver>();
  return driver;
}

}  // namespace dualjit::jit
