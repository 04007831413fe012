// HostTapeColumns' launches on the GPU (backends/assembly/host_tape_columns.h): a term's dense
// element blocks, component-major or cell-major (rows or columns), where its kernel keeps tapes and
// every output is linear in them, by the tapes' launch, the gather of the rest kernel's params
// (where the kernel has params), the rest kernel's sparse Jacobian, the auxiliary array's launch
// and the columns' launches, which read each tape slot once per element (bench/RESULTS.md).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "backends/assembly/problem.h"
#include "backends/assembly/tape_columns_launches.h"
#include "backends/cuda/cuda_kernel.h"
#include "jit/element_driver.h"
#include "jit/tape_pattern.h"

namespace dualjit::assembly {

class DeviceTapeColumns {
 public:
  // Null where tape_columns_launches has none (no tapes, an output not linear in them, a
  // dense rest Jacobian). The launches compile in parallel, the columns' for `stores` with the
  // others; the other stores' columns' on their first run.
  static std::unique_ptr<DeviceTapeColumns> make(
      const Term& term, const TapeColumnsSettings& settings = {},
      ColumnStores stores = ColumnStores::ComponentMajor);

  // Every one of the first `inputs.n_elements` elements' n_outputs x n_inputs entries, stored
  // as `stores` says (DirectTiles: cell-major row-major blocks, through the expand launch),
  // into `out` (device). `inputs`: the term's element
  // inputs on the device (fields, connectivity, params, uniforms; outputs unset), as the
  // element kernels take them.
  void run(const jit::ElementLaunch& inputs, double* out, ColumnStores stores, CUstream stream);
  // The tapes' launch, whose inputs `run` takes.
  const jit::LoweredKernel& tapes_lowered() const { return tapes_->lowered(); }
  // Every launch, for reports (Assembler::kernels).
  std::vector<const cuda::CudaKernel*> kernels() const;

 private:
  DeviceTapeColumns() = default;
  // The uncompiled columns' launches for `stores`, appended to `out`, then (DirectTiles) the
  // expand launch; adopt_columns takes them back compiled, in that order.
  void take_columns(ColumnStores stores, std::vector<jit::LoweredKernel>& out);
  void adopt_columns(ColumnStores stores, std::vector<std::unique_ptr<cuda::CudaKernel>> kernels);
  jit::TapePattern pattern_;
  int aux_size_ = 0;
  int n_params_ = 0;
  std::unique_ptr<cuda::CudaKernel> tapes_, gather_, rest_, fill_;  // gather_: or null
  std::map<ColumnStores, std::vector<std::unique_ptr<cuda::CudaKernel>>> columns_;
  std::map<ColumnStores, std::vector<jit::LoweredKernel>> uncompiled_;  // columns not yet run
  // With DirectTiles' columns: compiled with them, their direct_size_ slots an element.
  std::unique_ptr<cuda::CudaKernel> expand_;
  std::optional<jit::LoweredKernel> uncompiled_expand_;
  int direct_size_ = 0;
  cuda::DeviceBuffer tape_, values_, params_, rest_values_, rest_first_, aux_, direct_;
};

}  // namespace dualjit::assembly
