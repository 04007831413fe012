#include "backends/assembly/assembler.h"

#include <type_traits>

#include "backends/assembly/host_element_assembly.h"
#include "backends/assembly/host_in_place_assembly.h"
#include "backends/assembly/strategies/in_place_strategy.h"

namespace dualjit::assembly {

std::string_view backend_name(Backend b) {
  return b == Backend::Cuda ? "cuda" : b == Backend::Cpu ? "cpu" : "auto";
}

Backend resolve_backend(Backend b) {
  if (b != Backend::Auto) return b;
  return cuda::driver_available() ? Backend::Cuda : Backend::Cpu;
}

// The CUDA backend's pieces, each built on first use: one state and direction for all.
struct Assembler::Cuda {
  cuda::DeviceBuffer state, direction;
  // The split Jacobian's assemblies, by OffOrder.
  std::unique_ptr<DeviceFusedAssembly<float>> split32[2], residual32;
  std::unique_ptr<DeviceFusedAssembly<double>> split64[2];
  std::unique_ptr<DeviceElementAssembly> element;
  cuda::DeviceBuffer off_row_ptr, off_col_idx;  // the off-diagonal pattern's BSR index
};

// The CPU backend's pieces.
struct Assembler::Cpu {
  std::unique_ptr<HostFusedAssembly<float>> split32[2], residual32;
  std::unique_ptr<HostFusedAssembly<double>> split64[2];
  std::unique_ptr<HostElementAssembly> element;
  std::unique_ptr<HostInPlaceAssembly> in_place;
};

jit::LoweringOptions element_kernel_lowering(Problem& p, size_t term, Mode mode,
                                             const AssemblerOptions& o) {
  const Term& t = p.term(term);
  const bool cuda = resolve_backend(o.backend) == Backend::Cuda;
  // HostInPlaceAssembly compiles the GPU's default block size (the same source).
  const int per_block = cuda ? o.element_layout.elements_per_block : 128;
  const ElementStrategy s = o.element_strategy(mode);
  if (s != ElementStrategy::Gather && mode != Mode::Value) {
    InPlaceShape shape{p.block_size(), o.element_width, per_block, nullptr, o.hessian_projection};
    if (mode_is_matrix(mode)) shape.pattern = &p.pattern();
    if (cuda) shape.min_blocks = o.element_layout.min_blocks;
    return in_place_strategy(s).lowering(t, mode, shape);
  }
  jit::LoweringOptions l = element_lowering(t, mode, o.element_width, o.element_rows);
  l.compile_effort = o.compile_effort;
  if (cuda) l.layout = o.element_layout;
  return l;
}

Assembler::Assembler(Problem& problem, AssemblerOptions options)
    : problem_(problem),
      options_(std::move(options)),
      backend_(resolve_backend(options_.backend)),
      n_terms_(problem.n_terms()) {
  options_.fused.compile_effort = options_.compile_effort;
  if (options_.hessian_projection.active() && options_.matrix_strategy == ElementStrategy::Gather) {
    throw ProblemError("Assembler: Hessian projection (" + options_.hessian_projection.describe() +
                       ") needs an in-place matrix strategy, not element-gather");
  }
  if (backend_ == Backend::Cuda) {
    cuda_ = std::make_unique<Cuda>();
    const size_t bytes = static_cast<size_t>(problem.n_nodes()) * problem.block_size() * 8;
    cuda_->state = cuda::DeviceBuffer(bytes);
    cuda_->direction = cuda::DeviceBuffer(bytes);
  } else {
    cpu_ = std::make_unique<Cpu>();
  }
}

Assembler::~Assembler() = default;

namespace {

template <class Fused>
void add_kernels(const Fused* f, std::vector<KernelInfo>& out) {
  if (!f) return;
  for (const auto& k : f->kernels()) {
    KernelInfo i;
    i.symbol = k->lowered().symbol;
    i.compiled_now = k->compiled_now();
    i.flops = k->lowered().ops.flops();
    if constexpr (std::is_same_v<std::decay_t<decltype(*k)>, cuda::CudaKernel>) {
      const auto attr = k->attributes();
      i.registers = attr.registers;
      i.spill_bytes = attr.local_bytes;
    }
    out.push_back(std::move(i));
  }
}

}  // namespace

std::vector<KernelInfo> Assembler::kernels() const {
  std::vector<KernelInfo> out;
  if (cuda_) {
    for (const auto& f : cuda_->split32) add_kernels(f.get(), out);
    for (const auto& f : cuda_->split64) add_kernels(f.get(), out);
    add_kernels(cuda_->residual32.get(), out);
    add_kernels(cuda_->element.get(), out);
  }
  if (cpu_) {
    for (const auto& f : cpu_->split32) add_kernels(f.get(), out);
    for (const auto& f : cpu_->split64) add_kernels(f.get(), out);
    add_kernels(cpu_->residual32.get(), out);
    add_kernels(cpu_->in_place.get(), out);
    add_kernels(cpu_->element.get(), out);
  }
  return out;
}

void Assembler::check_terms(const char* call) const {
  if (problem_.n_terms() != n_terms_) {
    throw ProblemError(std::string("Assembler::") + call + ": the problem has " +
                       std::to_string(problem_.n_terms()) + " terms, " + std::to_string(n_terms_) +
                       " when the assembler was built");
  }
}

Assembler::Cuda& Assembler::cuda(const char* call) {
  check_terms(call);
  if (!cuda_) {
    throw ProblemError(std::string("Assembler::") + call +
                       ": device memory needs the CUDA backend (this assembler runs on the CPU)");
  }
  return *cuda_;
}

Assembler::Cpu& Assembler::cpu() {
  return *cpu_;
}

namespace {

template <class T>
T* dptr(const cuda::DeviceBuffer& b) {
  return reinterpret_cast<T*>(static_cast<uintptr_t>(b.get()));
}

FusedOptions with_jacobian(FusedOptions o, bool jacobian, OffOrder order = OffOrder::rows) {
  o.jacobian = jacobian;
  o.off_order = order;
  return o;
}

}  // namespace

// --- Device memory ---------------------------------------------------------------------------

void Assembler::set_state(std::span<const double> state) {
  Cuda& c = cuda("set_state");
  problem_.check_values(state, "state");
  if (!state.empty()) c.state.upload(state.data(), c.state.bytes());
}

void Assembler::set_direction(std::span<const double> direction) {
  Cuda& c = cuda("set_direction");
  problem_.check_values(direction, "HVP direction");
  if (!direction.empty()) c.direction.upload(direction.data(), c.direction.bytes());
}

double* Assembler::state_device() {
  return dptr<double>(cuda("state_device").state);
}

double* Assembler::direction_device() {
  return dptr<double>(cuda("direction_device").direction);
}

const double* Assembler::run_residual(CUstream stream, int64_t elements) {
  Cuda& c = cuda("run_residual");
  if (!c.residual32) {
    c.residual32 = std::make_unique<DeviceFusedAssembly<float>>(
        problem_, with_jacobian(options_.fused, false));
  }
  c.residual32->run(dptr<double>(c.state), stream, elements);
  return c.residual32->residual_device();
}

template <class OffT>
DeviceSplitJacobian<OffT> Assembler::run_jacobian_split(CUstream stream, OffOrder order) {
  Cuda& c = cuda("run_jacobian_split");
  auto& slot = [&]() -> std::unique_ptr<DeviceFusedAssembly<OffT>>& {
    if constexpr (std::is_same_v<OffT, float>) {
      return c.split32[int(order)];
    } else {
      return c.split64[int(order)];
    }
  }();
  if (!slot) {
    slot = std::make_unique<DeviceFusedAssembly<OffT>>(problem_,
                                                       with_jacobian(options_.fused, true, order));
  }
  if (c.off_row_ptr.bytes() == 0) {
    const mesh::BlockPattern& off = problem_.off_pattern();
    c.off_row_ptr = cuda::DeviceBuffer::from(off.row_ptr32());
    if (off.n_blocks() > 0) c.off_col_idx = cuda::DeviceBuffer::from(off.col_idx());
  }
  slot->run(dptr<double>(c.state), stream);
  DeviceSplitJacobian<OffT> j;
  j.residual = slot->residual_device();
  j.diag = slot->diag_device();
  j.off = slot->off_device();
  j.off_row_ptr = dptr<int32_t>(c.off_row_ptr);
  j.off_col_idx = dptr<int32_t>(c.off_col_idx);
  j.off_storage = slot->off_storage_device();
  j.n_off_blocks = problem_.off_pattern().n_blocks();
  j.block_dim = problem_.block_size();
  return j;
}

template DeviceSplitJacobian<float> Assembler::run_jacobian_split<float>(CUstream, OffOrder);
template DeviceSplitJacobian<double> Assembler::run_jacobian_split<double>(CUstream, OffOrder);

namespace {

DeviceElementAssembly& element_on(Problem& p, const AssemblerOptions& o,
                                  std::unique_ptr<DeviceElementAssembly>& slot,
                                  cuda::DeviceBuffer& state, cuda::DeviceBuffer& direction) {
  if (!slot) {
    slot = std::make_unique<DeviceElementAssembly>(
        p, DeviceElementOptions{o.element_width, o.element_layout, o.vector_strategy,
                                o.matrix_strategy, o.hessian_projection, dptr<double>(state),
                                dptr<double>(direction), o.element_rows, o.compile_effort,
                                o.element_launches, o.element_tape_columns,
                                o.element_tape_column_settings});
  }
  return *slot;
}

}  // namespace

const double* Assembler::run_energy(CUstream stream) {
  Cuda& c = cuda("run_energy");
  DeviceElementAssembly& e = element_on(problem_, options_, c.element, c.state, c.direction);
  e.run_energy(stream);
  return e.energy_device();
}

const double* Assembler::run_gradient(CUstream stream) {
  Cuda& c = cuda("run_gradient");
  DeviceElementAssembly& e = element_on(problem_, options_, c.element, c.state, c.direction);
  e.run_gradient(stream);
  return e.gradient_device();
}

const double* Assembler::run_hvp(CUstream stream) {
  Cuda& c = cuda("run_hvp");
  DeviceElementAssembly& e = element_on(problem_, options_, c.element, c.state, c.direction);
  e.run_hvp(stream);
  return e.hvp_device();
}

DeviceBsr Assembler::run_hessian(mesh::Symmetry symmetry, CUstream stream) {
  Cuda& c = cuda("run_hessian");
  DeviceElementAssembly& e = element_on(problem_, options_, c.element, c.state, c.direction);
  e.run_hessian(symmetry, stream);
  return e.hessian_bsr(symmetry);
}

DeviceEnergyGradientHessian Assembler::run_energy_gradient_hessian(mesh::Symmetry symmetry,
                                                                   CUstream stream) {
  Cuda& c = cuda("run_energy_gradient_hessian");
  DeviceElementAssembly& e = element_on(problem_, options_, c.element, c.state, c.direction);
  e.run_energy_gradient_hessian(symmetry, stream);
  return {e.energy_device(), e.gradient_device(), e.hessian_bsr(symmetry)};
}

DeviceBsr Assembler::run_jacobian(CUstream stream) {
  Cuda& c = cuda("run_jacobian");
  DeviceElementAssembly& e = element_on(problem_, options_, c.element, c.state, c.direction);
  e.run_jacobian(stream);
  return e.jacobian_bsr();
}

const double* Assembler::run_element_blocks(size_t term, BlockOrder order, CUstream stream,
                                            int64_t elements) {
  Cuda& c = cuda("run_element_blocks");
  DeviceElementAssembly& e = element_on(problem_, options_, c.element, c.state, c.direction);
  e.run_element_jacobians(term, order, stream, /*sparse=*/false, elements);
  return e.element_jacobians_device();
}

namespace {

// Sparse blocks are an element's pattern values, in CSR order: no columns to lead with.
void check_sparse_order(BlockOrder order, const char* call) {
  if (order == BlockOrder::CellMajorColumns) {
    throw ProblemError(std::string("Assembler::") + call +
                       ": sparse element blocks are CellMajor or ComponentMajor "
                       "(CellMajorColumns is for dense blocks)");
  }
}

}  // namespace

const double* Assembler::run_element_sparse_blocks(size_t term, BlockOrder order, CUstream stream) {
  check_sparse_order(order, "run_element_sparse_blocks");
  Cuda& c = cuda("run_element_sparse_blocks");
  DeviceElementAssembly& e = element_on(problem_, options_, c.element, c.state, c.direction);
  e.run_element_jacobians(term, order, stream, /*sparse=*/true);
  return e.element_jacobians_device();
}

// --- Host memory -------------------------------------------------------------------------------

namespace {

// Waits for the legacy stream, surfacing kernel errors under `what`, then copies n doubles.
std::vector<double> download(const double* p, int64_t n, const char* what) {
  cuda::check_last(what);
  std::vector<double> out(n);
  if (n > 0) cuda::download(out.data(), p, n * sizeof(double));
  return out;
}

}  // namespace

std::vector<double> Assembler::residual(std::span<const double> state) {
  problem_.check_values(state, "state");
  if (backend_ == Backend::Cuda) {
    set_state(state);
    return download(run_residual(), int64_t(state.size()), "Assembler::residual");
  }
  check_terms("residual");
  Cpu& c = cpu();
  if (!c.residual32) {
    c.residual32 =
        std::make_unique<HostFusedAssembly<float>>(problem_, with_jacobian(options_.fused, false));
  }
  std::vector<double> r(state.size(), 0.0);
  mesh::SplitBlockCsr<float> unused;
  c.residual32->run(state, r, unused);
  return r;
}

template <class OffT>
mesh::SplitBlockCsr<OffT> Assembler::jacobian_split(std::span<const double> state,
                                                    std::vector<double>* residual, OffOrder order) {
  problem_.check_values(state, "state");
  const int B = problem_.block_size();
  if (backend_ == Backend::Cuda) {
    set_state(state);
    const DeviceSplitJacobian<OffT> d = run_jacobian_split<OffT>(nullptr, order);
    cuda::check_last("Assembler::jacobian_split");
    auto m = mesh::SplitBlockCsr<OffT>::zeros(problem_.off_pattern(), B, B);
    if (!m.diag.empty()) cuda::download(m.diag.data(), d.diag, m.diag.size() * sizeof(double));
    if (!m.off.values.empty() && !d.off_storage) {
      cuda::download(m.off.values.data(), d.off, m.off.values.size() * sizeof(OffT));
    } else if (!m.off.values.empty()) {
      std::vector<OffT> elements(m.off.values.size());
      std::vector<int32_t> storage(d.n_off_blocks);
      cuda::download(elements.data(), d.off, elements.size() * sizeof(OffT));
      cuda::download(storage.data(), d.off_storage, storage.size() * sizeof(int32_t));
      off_rows_from_elements<OffT>(elements, storage, B * B, m.off.values);
    }
    if (residual)
      *residual = download(d.residual, int64_t(state.size()), "Assembler::jacobian_split");
    return m;
  }
  check_terms("jacobian_split");
  Cpu& c = cpu();
  auto& slot = [&]() -> std::unique_ptr<HostFusedAssembly<OffT>>& {
    if constexpr (std::is_same_v<OffT, float>) {
      return c.split32[int(order)];
    } else {
      return c.split64[int(order)];
    }
  }();
  if (!slot) {
    slot = std::make_unique<HostFusedAssembly<OffT>>(problem_,
                                                     with_jacobian(options_.fused, true, order));
  }
  std::vector<double> r(state.size(), 0.0);
  auto m = mesh::SplitBlockCsr<OffT>::zeros(problem_.off_pattern(), B, B);
  slot->run(state, r, m);
  if (residual) *residual = std::move(r);
  return m;
}

template mesh::SplitBlockCsr<float> Assembler::jacobian_split<float>(std::span<const double>,
                                                                     std::vector<double>*,
                                                                     OffOrder);
template mesh::SplitBlockCsr<double> Assembler::jacobian_split<double>(std::span<const double>,
                                                                       std::vector<double>*,
                                                                       OffOrder);

namespace {

HostElementAssembly& host_element(Problem& p, const AssemblerOptions& o,
                                  std::unique_ptr<HostElementAssembly>& slot) {
  if (!slot) {
    slot = std::make_unique<HostElementAssembly>(
        p, o.element_width, o.element_rows, o.element_tape_columns, o.element_tape_column_settings);
  }
  return *slot;
}

// The CPU's in-place element strategies, or null where `mode` is summed by element-gather (the
// serial host adds).
HostInPlaceAssembly* host_in_place(Problem& p, const AssemblerOptions& o, Mode mode,
                                   std::unique_ptr<HostInPlaceAssembly>& slot) {
  if (o.element_strategy(mode) == ElementStrategy::Gather) return nullptr;
  if (!slot) {
    slot = std::make_unique<HostInPlaceAssembly>(p, o.vector_strategy, o.matrix_strategy,
                                                 o.element_width, o.hessian_projection);
  }
  return slot.get();
}

mesh::BlockCsr<double> download_bsr(const DeviceBsr& d, const mesh::BlockPattern& pattern, int B,
                                    const char* what) {
  cuda::check_last(what);
  auto m = mesh::BlockCsr<double>::zeros(pattern, B, B);
  if (!m.values.empty())
    cuda::download(m.values.data(), d.values, m.values.size() * sizeof(double));
  return m;
}

}  // namespace

mesh::BlockCsr<double> Assembler::jacobian(std::span<const double> state) {
  problem_.check_values(state, "state");
  if (backend_ == Backend::Cuda) {
    set_state(state);
    const DeviceBsr d = run_jacobian();
    return download_bsr(d, problem_.pattern(), problem_.block_size(), "Assembler::jacobian");
  }
  check_terms("jacobian");
  if (HostInPlaceAssembly* h = host_in_place(problem_, options_, Mode::Jacobian, cpu().in_place)) {
    return h->jacobian(state);
  }
  return host_element(problem_, options_, cpu().element).jacobian(state);
}

double Assembler::energy(std::span<const double> state) {
  problem_.check_values(state, "state");
  if (backend_ == Backend::Cuda) {
    set_state(state);
    return download(run_energy(), 1, "Assembler::energy")[0];
  }
  check_terms("energy");
  return host_element(problem_, options_, cpu().element).energy(state);
}

std::vector<double> Assembler::gradient(std::span<const double> state) {
  problem_.check_values(state, "state");
  if (backend_ == Backend::Cuda) {
    set_state(state);
    return download(run_gradient(), int64_t(state.size()), "Assembler::gradient");
  }
  check_terms("gradient");
  if (HostInPlaceAssembly* h = host_in_place(problem_, options_, Mode::Gradient, cpu().in_place)) {
    return h->gradient(state);
  }
  return host_element(problem_, options_, cpu().element).gradient(state);
}

mesh::BlockCsr<double> Assembler::hessian(std::span<const double> state, mesh::Symmetry symmetry) {
  problem_.check_values(state, "state");
  if (backend_ == Backend::Cuda) {
    set_state(state);
    const DeviceBsr d = run_hessian(symmetry);
    return download_bsr(d, problem_.pattern(symmetry), problem_.block_size(), "Assembler::hessian");
  }
  check_terms("hessian");
  if (HostInPlaceAssembly* h = host_in_place(problem_, options_, Mode::Hessian, cpu().in_place)) {
    return h->hessian(state, symmetry);
  }
  return host_element(problem_, options_, cpu().element).hessian(state, symmetry);
}

EnergyGradientHessian Assembler::energy_gradient_hessian(std::span<const double> state,
                                                         mesh::Symmetry symmetry) {
  problem_.check_values(state, "state");
  EnergyGradientHessian out;
  if (backend_ == Backend::Cuda) {
    set_state(state);
    const DeviceEnergyGradientHessian d = run_energy_gradient_hessian(symmetry);
    out.hessian = download_bsr(d.hessian, problem_.pattern(symmetry), problem_.block_size(),
                               "Assembler::energy_gradient_hessian");
    out.gradient =
        download(d.gradient, int64_t(state.size()), "Assembler::energy_gradient_hessian");
    out.energy = download(d.energy, 1, "Assembler::energy_gradient_hessian")[0];
    return out;
  }
  check_terms("energy_gradient_hessian");
  const ElementStrategy s = options_.matrix_strategy;
  if (s != ElementStrategy::Gather && in_place_strategy(s).sums_energy_gradient()) {
    HostInPlaceAssembly* h = host_in_place(problem_, options_, Mode::Hessian, cpu().in_place);
    out.hessian = h->hessian_with_energy_gradient(state, symmetry, out.gradient, out.energy);
    return out;
  }
  out.energy = energy(state);
  out.gradient = gradient(state);
  out.hessian = hessian(state, symmetry);
  return out;
}

std::vector<double> Assembler::hvp(std::span<const double> state,
                                   std::span<const double> direction) {
  problem_.check_values(state, "state");
  problem_.check_values(direction, "HVP direction");
  if (backend_ == Backend::Cuda) {
    set_state(state);
    set_direction(direction);
    return download(run_hvp(), int64_t(state.size()), "Assembler::hvp");
  }
  check_terms("hvp");
  if (HostInPlaceAssembly* h = host_in_place(problem_, options_, Mode::Hvp, cpu().in_place)) {
    return h->hvp(state, direction);
  }
  return host_element(problem_, options_, cpu().element).hvp(state, direction);
}

std::vector<double> Assembler::element_blocks(size_t term, std::span<const double> state,
                                              BlockOrder order) {
  return element_jacobians(term, state, order, false, "element_blocks");
}

std::vector<double> Assembler::element_sparse_blocks(size_t term, std::span<const double> state,
                                                     BlockOrder order) {
  check_sparse_order(order, "element_sparse_blocks");
  return element_jacobians(term, state, order, true, "element_sparse_blocks");
}

jit::JacobianPattern Assembler::element_pattern(size_t term) const {
  if (term >= problem_.n_terms()) {
    throw ProblemError("Assembler::element_pattern: term #" + std::to_string(term) + " of " +
                       std::to_string(problem_.n_terms()));
  }
  // Once per term: a large mechanism's dependency pass is not free, and the sparse Jacobian's
  // calls size their output by it.
  auto it = patterns_.find(term);
  if (it == patterns_.end())
    it = patterns_.emplace(term, jit::jacobian_pattern(*problem_.term(term).kernel)).first;
  return it->second;
}

std::vector<double> Assembler::element_jacobians(size_t term, std::span<const double> state,
                                                 BlockOrder order, bool sparse, const char* call) {
  problem_.check_values(state, "state");
  if (term >= problem_.n_terms()) {
    throw ProblemError(std::string("Assembler::") + call + ": term #" + std::to_string(term) +
                       " of " + std::to_string(problem_.n_terms()));
  }
  if (backend_ == Backend::Cuda) {
    set_state(state);
    const Term& t = problem_.term(term);
    const int64_t per = sparse ? element_pattern(term).nnz()
                               : int64_t(t.kernel->n_outputs()) * t.kernel->n_inputs();
    const double* d =
        sparse ? run_element_sparse_blocks(term, order) : run_element_blocks(term, order);
    return download(d, t.elements.size() * per, (std::string("Assembler::") + call).c_str());
  }
  check_terms(call);
  return host_element(problem_, options_, cpu().element)
      .element_jacobians(term, state, order, sparse);
}

}  // namespace dualjit::assembly
