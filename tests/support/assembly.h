// Assembly helpers for tests: the serial host reference every other path is checked against,
// and Assembler options for one backend and strategy.
#pragma once

#include "backends/assembly/assembler.h"
#include "backends/assembly/host_element_assembly.h"

namespace dualjit::test {

// Element-local results summed serially on the host (host_element_assembly.h).
inline assembly::HostElementAssembly serial(assembly::Problem& p) {
  return assembly::HostElementAssembly(p);
}

inline assembly::AssemblerOptions on_cpu(const assembly::FusedOptions& fused = {}) {
  assembly::AssemblerOptions o;
  o.backend = assembly::Backend::Cpu;
  o.fused = fused;
  return o;
}

inline assembly::AssemblerOptions on_gpu(const assembly::FusedOptions& fused = {}) {
  assembly::AssemblerOptions o;
  o.backend = assembly::Backend::Cuda;
  o.fused = fused;
  return o;
}

// One assembly on the CPU backend through the Assembler: the residual, and the split Jacobian
// when o.jacobian (else `jacobian` is left alone).
template <class OffT>
void assemble_on_cpu(assembly::Problem& p, std::span<const double> state,
                     const assembly::FusedOptions& o, std::vector<double>& residual,
                     mesh::SplitBlockCsr<OffT>& jacobian) {
  assembly::Assembler a(p, on_cpu(o));
  if (o.jacobian) {
    jacobian = a.jacobian_split<OffT>(state, &residual);
  } else {
    residual = a.residual(state);
  }
}

// The residual and split Jacobian on the GPU through the Assembler's device calls, shaped for
// tests that run repeatedly and then look at the last results; Aoff in o.off_order's storage,
// downloaded by rows.
template <class OffT>
class GpuSplit {
 public:
  GpuSplit(assembly::Problem& p, const assembly::FusedOptions& o)
      : a_(p, on_gpu(o)), jacobian_(o.jacobian), order_(o.off_order) {}
  void set_state(std::span<const double> state) { a_.set_state(state); }
  const assembly::DeviceSplitJacobian<OffT>& last() const { return last_; }
  void run(CUstream stream = nullptr) {
    if (jacobian_) {
      last_ = a_.run_jacobian_split<OffT>(stream, order_);
    } else {
      last_.residual = a_.run_residual(stream);
    }
  }
  std::vector<assembly::KernelInfo> kernels() const { return a_.kernels(); }
  std::vector<double> residual() const {
    cuda::check_last("GpuSplit::residual");
    std::vector<double> r(a_.problem().n_nodes() * a_.problem().block_size());
    cuda::download(r.data(), last_.residual, r.size() * sizeof(double));
    return r;
  }
  mesh::SplitBlockCsr<OffT> jacobian() const {
    cuda::check_last("GpuSplit::jacobian");
    const int B = a_.problem().block_size();
    auto m = mesh::SplitBlockCsr<OffT>::zeros(a_.problem().off_pattern(), B, B);
    cuda::download(m.diag.data(), last_.diag, m.diag.size() * sizeof(double));
    std::vector<OffT> stored(m.off.values.size());
    cuda::download(stored.data(), last_.off, stored.size() * sizeof(OffT));
    if (!last_.off_storage) {
      m.off.values = std::move(stored);
    } else {
      std::vector<int32_t> storage(last_.n_off_blocks);
      cuda::download(storage.data(), last_.off_storage, storage.size() * sizeof(int32_t));
      assembly::off_rows_from_elements<OffT>(stored, storage, B * B, m.off.values);
    }
    return m;
  }

 private:
  mutable assembly::Assembler a_;
  bool jacobian_;
  assembly::OffOrder order_;
  assembly::DeviceSplitJacobian<OffT> last_;
};

}  // namespace dualjit::test
