#include "backends/assembly/strategies/in_place_driver.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "backends/assembly/strategies/emit_helpers.h"
#include "jit/driver_text.h"
#include "jit/hessian_projection.h"

namespace dualjit::assembly {

InPlaceDriver::InPlaceDriver(std::string strategy, Item item, InPlaceRules rules, int block,
                             int vertices)
    : strategy_(std::move(strategy)),
      item_(std::move(item)),
      rules_(std::move(rules)),
      block_(block),
      vertices_(vertices) {}

void InPlaceDriver::check(const jit::DriverSpec& s, const jit::DerivativePlan&,
                          const std::string& kernel) const {
  if (s.layout.threads_per_element != 1) {
    throw std::invalid_argument(kernel + ": " + strategy_ + " runs one thread per " + item_.what +
                                " (" + s.layout.describe() + ")");
  }
  if (team_projection(s) && s.layout.elements_per_block % 32 != 0) {
    std::ostringstream m;
    m << kernel << ": " << strategy_ << " projects " << s.n_inputs << "x" << s.n_inputs
      << " Hessians by warps, which needs whole warps per block (" << s.layout.describe() << ")";
    throw std::invalid_argument(m.str());
  }
}

bool InPlaceDriver::team_projection(const jit::DriverSpec& s) const {
  return rules_.projection.active() && jit::projection_team_lanes(s.n_inputs) > 0;
}

std::string InPlaceDriver::cuda_entry(const jit::DriverSpec& s, const jit::DerivativePlan&) const {
  const int b = s.layout.elements_per_block;
  std::ostringstream os;
  os << "extern \"C\" __global__ void __launch_bounds__(" << b << jit::bounds_min(s) << ") "
     << s.symbol << "(const " << s.args_type() << " a) {\n"
     << "  const long long " << item_.var << " = (long long)blockIdx.x * " << b
     << " + threadIdx.x;\n";
  if (team_projection(s)) {
    // Every lane takes part in its warp's projections; past the end it repeats the last item
    // and writes nothing.
    os << "  const bool live = " << item_.var << " < a." << item_.count << ";\n"
       << "  " << s.symbol << "_" << item_.fn << "(a, live ? " << item_.var << " : a."
       << item_.count << " - 1, live);\n}\n";
  } else {
    os << "  if (" << item_.var << " < a." << item_.count << ") " << s.symbol << "_" << item_.fn
       << "(a, " << item_.var << ");\n}\n";
  }
  return os.str();
}

std::string InPlaceDriver::host_entry(const jit::DriverSpec& s, const jit::DerivativePlan&) const {
  std::ostringstream os;
  os << "extern \"C\" void " << s.symbol << "_host(const " << s.args_type() << "* ap) {\n"
     << "  const " << s.args_type() << "& a = *ap;\n"
     << "#pragma omp parallel for schedule(" << item_.schedule << ")\n"
     << "  for (long long " << item_.var << " = 0; " << item_.var << " < a." << item_.count
     << "; ++" << item_.var << ") " << s.symbol << "_" << item_.fn << "(a, " << item_.var
     << (team_projection(s) ? ", true" : "") << ");\n}\n";
  return os.str();
}

jit::LaunchPolicy InPlaceDriver::launch(const jit::DriverSpec& s) const {
  jit::LaunchPolicy p;
  p.items = item_.count;
  p.items_per_block = s.layout.elements_per_block;
  p.block_threads = s.layout.elements_per_block;
  return p;
}

std::string InPlaceDriver::suffix() const {
  return unit_suffix() + rules_.projection.suffix() + (with_energy_gradient() ? "_eg" : "");
}

std::string InPlaceDriver::functions(const jit::DriverSpec& s, const jit::DerivativePlan&) const {
  std::string f;
  if (rules_.projection.active()) {
    f = jit::emit_projection_function(s.symbol + "_project", s.n_inputs, rules_.projection);
  }
  if (team_projection(s)) {
    f += jit::emit_team_projection_function(s.symbol + "_project", s.n_inputs, rules_.projection);
  }
  return f + item_functions(s);
}

std::string InPlaceDriver::function_head(const jit::DriverSpec& s) const {
  return "DJ_FN void " + s.symbol + "_" + item_.fn + "(const " + s.args_type() + "& a, long long " +
         item_.var + (team_projection(s) ? ", bool live" : "") + ") {\n";
}

std::string InPlaceDriver::element_results(const jit::DriverSpec& s, const std::string& indent,
                                           const std::string& live, const std::string& nodes,
                                           const std::string& own_vertex) const {
  const auto dim = [](size_t n) { return std::to_string(std::max<size_t>(n, 1)); };
  std::ostringstream os;
  std::istringstream loads(jit::emit_element_loads(s, nodes, own_vertex));
  // emit_element_loads indents by two spaces: `indent` replaces them.
  for (std::string line; std::getline(loads, line);) os << indent << line.substr(2) << '\n';
  os << indent << "double val[" << dim(s.n_outputs) << "], d1[" << dim(s.first_size) << "], d2["
     << dim(s.second_size) << "];\n";
  for (int c = 0; c < s.n_chunks; ++c) os << indent << jit::chunk_call(s, c);
  if (team_projection(s)) {
    os << indent << s.symbol << "_project_team(d2, " << live << ");\n";
  } else if (rules_.projection.active()) {
    os << indent << s.symbol << "_project(d2);\n";
  }
  return os.str();
}

std::string InPlaceDriver::row_sum(int v, int c) const {
  const RowGather& r = rules_.rows;
  return emit::signed_sum(rules_.source, r.offset, r.sign, r.ptr[v], r.ptr[v + 1], c);
}

std::string InPlaceDriver::entry_sum(int64_t q) const {
  const EntryGather& g = rules_.entries;
  return emit::signed_sum(rules_.source, g.offset, g.sign, g.ptr[q], g.ptr[q + 1], 0);
}

std::string InPlaceDriver::gradient_sum(int v, int c) const {
  const RowGather& r = rules_.gradient_rows;
  return emit::signed_sum("d1", r.offset, r.sign, r.ptr[v], r.ptr[v + 1], c);
}

bool InPlaceDriver::has_gradient_row(int v) const {
  const RowGather& r = rules_.gradient_rows;
  return !r.ptr.empty() && r.ptr[v] != r.ptr[v + 1];
}

bool InPlaceDriver::has_row(int v) const {
  return rules_.rows.ptr[v] != rules_.rows.ptr[v + 1];
}

bool InPlaceDriver::has_block(int a, int b) const {
  const int64_t q0 = int64_t(a * vertices_ + b) * block_ * block_;
  return rules_.entries.ptr[q0] != rules_.entries.ptr[q0 + block_ * block_];
}

}  // namespace dualjit::assembly
