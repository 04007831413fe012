// The dense element Jacobians of a term whose kernel keeps tapes (jit/tape_pattern.h) and whose
// outputs are all linear in them (a mechanism's rates and heat release), component-major or
// cell-major, by the tape columns' launches (jit/emit_tape_columns.h) on the CPU backend: the
// tapes'; where the kernel has params, the gather of them and the tapes' values; the rest
// kernel's (jit/tape_rest_kernel.h) over them; the auxiliary array's; the columns'. On the GPU
// the same launches read each tape slot once per element where the row groups read it about
// four times (bench/RESULTS.md); here they are the host's form of it, checked against the row
// groups.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "backends/assembly/problem.h"
#include "backends/assembly/tape_columns_launches.h"
#include "backends/cpu/cpu_kernel.h"
#include "jit/tape_column_groups.h"

namespace dualjit::assembly {

class HostTapeColumns {
 public:
  // Null where tape_columns_launches has none (no tapes, an output not linear in them, a
  // dense rest Jacobian). The settings' groups and launches as on the GPU (layout and effort
  // do not apply here).
  static std::unique_ptr<HostTapeColumns> make(const Term& term,
                                               const TapeColumnsSettings& settings = {});

  // Every element's n_outputs x n_inputs entries in `order` at the node-major `state`:
  // cell-major rows by the expand launch from the columns' direct entries, as on the GPU. The
  // columns' launches for each stores are compiled on their first run.
  std::vector<double> run(const Term& term, std::span<const double> state,
                          BlockOrder order = BlockOrder::ComponentMajor);
  // Every launch, for reports (Assembler::kernels).
  std::vector<const cpu::CpuKernel*> kernels() const;

 private:
  HostTapeColumns() = default;
  jit::TapePattern pattern_;
  int aux_size_ = 0;  // the auxiliary array's slots an element (jit::TapeColumnsAux)
  std::unique_ptr<cpu::CpuKernel> tapes_, gather_, rest_, fill_;  // gather_: or null
  std::unique_ptr<cpu::CpuKernel> expand_;  // compiled with the DirectTiles columns
  std::optional<jit::LoweredKernel> uncompiled_expand_;
  int direct_size_ = 0;
  std::map<ColumnStores, std::vector<std::unique_ptr<cpu::CpuKernel>>> columns_;
  std::map<ColumnStores, std::vector<jit::LoweredKernel>> uncompiled_;  // columns not yet run
};

}  // namespace dualjit::assembly
