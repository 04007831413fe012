#include "backends/tuning/element_assembly_config.h"

#include <stdexcept>

#include "backends/tuning/config_fields.h"

namespace dualjit::tuning {
namespace {

const std::string kWhat = "element assembly configuration";

}  // namespace

jit::TuningConfig element_assembly_config(const assembly::AssemblerOptions& o, Mode mode) {
  return {
      {"element_strategy", std::string(assembly::element_strategy_name(o.element_strategy(mode)))},
      {"width", std::to_string(o.element_width)},
      {"threads_per_element", std::to_string(o.element_layout.threads_per_element)},
      {"elements_per_block", std::to_string(o.element_layout.elements_per_block)},
      {"min_blocks", std::to_string(o.element_layout.min_blocks)}};
}

void apply_element_assembly_config(const jit::TuningConfig& c, Mode mode,
                                   assembly::AssemblerOptions& o) {
  if (const auto it = c.find("element_strategy"); it != c.end()) {
    try {
      (assembly::mode_is_matrix(mode) ? o.matrix_strategy : o.vector_strategy) =
          assembly::parse_element_strategy(it->second);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("element assembly configuration: field 'element_strategy': " +
                                  std::string(e.what()));
    }
  }
  o.element_width = int_field(c, "width", o.element_width, kWhat);
  o.element_layout.threads_per_element =
      int_field(c, "threads_per_element", o.element_layout.threads_per_element, kWhat);
  o.element_layout.elements_per_block =
      int_field(c, "elements_per_block", o.element_layout.elements_per_block, kWhat);
  o.element_layout.min_blocks = int_field(c, "min_blocks", o.element_layout.min_blocks, kWhat);
}

std::string describe_element_assembly(const assembly::AssemblerOptions& o, Mode mode) {
  std::string s = std::string(assembly::element_strategy_name(o.element_strategy(mode))) + " W" +
                  std::to_string(o.element_width) + " " +
                  std::to_string(o.element_layout.threads_per_element) + "x" +
                  std::to_string(o.element_layout.elements_per_block);
  if (o.element_layout.min_blocks > 0) s += " mb" + std::to_string(o.element_layout.min_blocks);
  return s;
}

std::vector<assembly::AssemblerOptions> element_assembly_candidates(Target target, Mode mode,
                                                                    int n_inputs, int block) {
  std::vector<int> widths = {0};
  if (block > 0 && block < n_inputs) widths.push_back(block);
  std::vector<assembly::AssemblerOptions> out;
  for (auto s : {assembly::ElementStrategy::Scatter, assembly::ElementStrategy::NodeGather,
                 assembly::ElementStrategy::Gather}) {
    for (int w : widths) {
      for (int b :
           target == Target::Cuda ? std::vector<int>{128, 64, 256} : std::vector<int>{128}) {
        assembly::AssemblerOptions o;
        (assembly::mode_is_matrix(mode) ? o.matrix_strategy : o.vector_strategy) = s;
        o.element_width = w;
        o.element_layout = {1, b, 0};
        out.push_back(o);
      }
    }
  }
  return out;
}

assembly::AssemblerOptions element_assembly_heuristic(Target, Mode mode, int block) {
  assembly::AssemblerOptions o;
  o.element_width = mode == Mode::Hvp ? block : 0;
  o.element_layout = {1, 128, 0};
  return o;
}

}  // namespace dualjit::tuning
