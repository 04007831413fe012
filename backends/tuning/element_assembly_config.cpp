#include "backends/tuning/element_assembly_config.h"

#include <stdexcept>

#include "backends/tuning/config_fields.h"

namespace dualjit::tuning {
namespace {

const std::string kWhat = "element assembly configuration";

}  // namespace

jit::TuningConfig element_assembly_config(const assembly::AssemblerOptions& o, Mode mode) {
  jit::TuningConfig c = {
      {"element_strategy", std::string(assembly::element_strategy_name(o.element_strategy(mode)))}};
  add_width_layout(o.element_width, o.element_layout, c);
  return c;
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
  read_width_layout(c, o.element_width, o.element_layout, kWhat);
}

std::string describe_element_assembly(const assembly::AssemblerOptions& o, Mode mode) {
  return std::string(assembly::element_strategy_name(o.element_strategy(mode))) + " " +
         describe_width_layout(o.element_width, o.element_layout);
}

std::vector<assembly::AssemblerOptions> element_assembly_candidates(Target target, Mode mode,
                                                                    int n_inputs, int block) {
  std::vector<int> widths = {0};
  if (block > 0 && block < n_inputs) widths.push_back(block);
  using S = assembly::ElementStrategy;
  std::vector<S> strategies = {S::Scatter, S::NodeGather, S::Gather};
  // Staged node-gather differs from node-gather only in its blocks.
  if (assembly::mode_is_matrix(mode))
    strategies.insert(strategies.begin() + 2, S::StagedNodeGather);
  std::vector<assembly::AssemblerOptions> out;
  for (auto s : strategies) {
    for (int w : widths) {
      std::vector<int> per_block = {128};
      if (target == Target::Cuda) per_block = {128, 64, 256};
      // One warp per tile: no warp waits at the tile's barriers for another. The occupancy
      // rule of node_gather.cpp never halves down to it, and which wins depends on the kernel
      // (the cloth step on an H200: 2-3% faster than 64 rows, then 1% slower once the mass's
      // params were read ahead; bench/RESULTS.md), so the tuner times it.
      if (target == Target::Cuda && s == S::StagedNodeGather) per_block.push_back(32);
      for (int b : per_block) {
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
