// The strategies that assemble element terms in place (element-scatter with OpenMP atomics,
// node-gather with one OpenMP iteration per node: strategies/) on the CPU backend: each term's
// kernel, compiled by the host compiler, adds its rows or blocks over all cores. Internal to
// assembly::Assembler (assembler.h), which uses it for the gradient, H v, Hessian and general
// Jacobian of its CPU backend under ElementStrategy::Scatter or NodeGather.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <vector>

#include "backends/assembly/element_rules.h"
#include "backends/assembly/problem.h"
#include "backends/assembly/strategies/in_place_strategy.h"
#include "backends/cpu/cpu_kernel.h"
#include "backends/mesh/block_csr.h"
#include "backends/mesh/incidence.h"

namespace dualjit::assembly {

class HostInPlaceAssembly {
 public:
  // `problem` must outlive this. The strategies of node vectors and block matrices (an output
  // whose strategy is Gather is refused: that is host_element_assembly.h). W = width (0: one
  // chunk).
  HostInPlaceAssembly(Problem& problem, ElementStrategy vector_strategy,
                      ElementStrategy matrix_strategy, int width = 0,
                      jit::HessianProjection projection = {});
  ~HostInPlaceAssembly();
  std::vector<const cpu::CpuKernel*> kernels() const;  // built so far

  std::vector<double> gradient(std::span<const double> state);
  std::vector<double> hvp(std::span<const double> state, std::span<const double> direction);
  mesh::BlockCsr<double> hessian(std::span<const double> state,
                                 mesh::Symmetry symmetry = mesh::Symmetry::General);
  mesh::BlockCsr<double> jacobian(std::span<const double> state);
  // The Hessian whose kernels also sum the gradient and the energy (a matrix strategy whose
  // unit sums_energy_gradient(); refused otherwise).
  mesh::BlockCsr<double> hessian_with_energy_gradient(std::span<const double> state,
                                                      mesh::Symmetry symmetry,
                                                      std::vector<double>& gradient,
                                                      double& energy);

 private:
  // Adds every energy (or vector) term's rows or blocks in `mode` into out.
  void rows(Mode mode, bool energy, std::span<const double> state,
            std::span<const double> direction, std::vector<double>& out);
  // gradient and node_energy (n_nodes x B, n_nodes): a Hessian that sums those too.
  void blocks(Mode mode, bool energy, std::span<const double> state, mesh::Symmetry symmetry,
              std::vector<double>& out, double* gradient = nullptr, double* node_energy = nullptr);
  // pattern: the blocks' (null for rows); kernels may be sized by it.
  const cpu::CpuKernel& kernel(size_t term, Mode mode, const mesh::BlockPattern* pattern,
                               bool with_energy_gradient = false, bool node_terms = false);
  // One launch of term's kernel into target (its incidence filled in when needed).
  void run(size_t term, Mode mode, std::span<const double> state, std::span<const double> direction,
           InPlaceTarget target, const mesh::BlockPattern* pattern);
  // A term's incidence, its other nodes and its nodes with elements, built on first use.
  struct TermIncidence {
    mesh::Incidence inc;
    std::vector<uint32_t> side;   // mesh::incidence_side_offsets
    std::vector<int32_t> nodes;   // mesh::incidence_other_nodes
    std::vector<int32_t> active;  // mesh::nodes_with_elements
  };
  const TermIncidence& incidence(size_t term);

  Problem& p_;
  ElementStrategy strategy(Mode mode) const;  // refuses Gather
  ElementStrategy vector_strategy_, matrix_strategy_;
  int width_;
  jit::HessianProjection projection_;
  std::map<std::tuple<size_t, Mode, const mesh::BlockPattern*, bool, bool>,
           std::unique_ptr<cpu::CpuKernel>>
      kernels_;
  std::map<std::pair<size_t, mesh::Symmetry>, std::vector<int32_t>> slots_;
  std::map<size_t, TermIncidence> incidence_;
  std::map<mesh::Symmetry, std::vector<int32_t>> row_ptr_;  // the patterns' BSR row pointers
  // Each node's diagonal block, per symmetry (where node terms add), built on first use.
  std::map<mesh::Symmetry, std::vector<int32_t>> diag_slot_;
};

}  // namespace dualjit::assembly
