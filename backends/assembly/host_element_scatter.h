// The element-scatter strategy (strategies/element_scatter.h) on the CPU backend: each term's
// kernel, compiled by the host compiler, adds its rows or blocks with OpenMP atomics over all
// cores. Internal to assembly::Assembler (assembler.h), which uses it for the gradient, H v,
// Hessian and general Jacobian of its CPU backend under
// ElementStrategy::Scatter.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <vector>

#include "backends/assembly/problem.h"
#include "backends/cpu/cpu_kernel.h"
#include "backends/mesh/block_csr.h"

namespace dualjit::assembly {

class HostElementScatter {
 public:
  // `problem` must outlive this. W = width (0: one chunk).
  explicit HostElementScatter(Problem& problem, int width = 0);
  ~HostElementScatter();
  std::vector<const cpu::CpuKernel*> kernels() const;  // built so far

  std::vector<double> gradient(std::span<const double> state);
  std::vector<double> hvp(std::span<const double> state, std::span<const double> direction);
  mesh::BlockCsr<double> hessian(std::span<const double> state,
                                 mesh::Symmetry symmetry = mesh::Symmetry::General);
  mesh::BlockCsr<double> jacobian(std::span<const double> state);

 private:
  // Adds every energy (or vector) term's rows in `mode` into out.
  void rows(Mode mode, bool energy, std::span<const double> state,
            std::span<const double> direction, std::vector<double>& out);
  void blocks(Mode mode, bool energy, std::span<const double> state, mesh::Symmetry symmetry,
              std::vector<double>& out);
  const cpu::CpuKernel& kernel(size_t term, Mode mode);

  Problem& p_;
  int width_;
  std::map<std::pair<size_t, Mode>, std::unique_ptr<cpu::CpuKernel>> kernels_;
  std::map<std::pair<size_t, mesh::Symmetry>, std::vector<int32_t>> slots_;
};

}  // namespace dualjit::assembly
