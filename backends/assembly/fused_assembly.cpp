#include "backends/assembly/fused_assembly.h"

#include <algorithm>
#include <type_traits>

namespace dualjit::assembly {

jit::LoweringOptions fused_lowering(const Problem& p, const Term& t, const FusedOptions& o,
                                    bool off_single, bool off_direct, bool store_rows) {
  jit::LoweringOptions lo;
  lo.mode = o.jacobian ? Mode::Jacobian : Mode::Value;
  lo.width = o.width > 0 ? o.width : p.block_size();
  lo.layout = o.layout;
  lo.input_vertex = t.input_vertex;
  jit::AssemblySpec spec;
  spec.strategy = o.strategy;
  spec.vertices = t.elements.k;
  spec.block = p.block_size();
  for (const auto& rules : t.output_scatter) {
    spec.output_scatter.emplace_back();
    for (const Scatter& sc : rules) spec.output_scatter.back().emplace_back(sc.vertex, sc.sign);
  }
  spec.jacobian = o.jacobian;
  spec.off_single = off_single;
  const bool gather = o.strategy == jit::AssemblyStrategy::GatherByColumn;
  spec.staged = o.staged;
  spec.off_direct = spec.staged && off_direct;
  spec.pre_reduce = spec.staged && o.pre_reduce && !gather;
  spec.store_rows = spec.staged && gather && store_rows;
  spec.warp_specialized = spec.staged && gather && o.warp_specialized;
  lo.assembly = spec;
  lo.single_tangents = o.single_tangents && o.jacobian;
  return lo;
}

bool off_blocks_single_writer(Problem& p) {
  const auto& pattern = p.off_pattern();
  std::vector<uint8_t> count(pattern.n_blocks(), 0);
  for (size_t ti = 0; ti < p.n_terms(); ++ti) {
    const Term& t = p.term(ti);
    if (t.energy) continue;
    const int k = t.elements.k;
    const auto& slots = pattern.element_slots(ti);
    const int64_t n = t.elements.size();
    for (int64_t e = 0; e < n; ++e) {
      // One block write per (output rule, input slot) pair off the diagonal, as emitted.
      for (const auto& rules : t.output_scatter) {
        for (const Scatter& r : rules) {
          for (int vb : t.input_vertex) {
            if (vb == r.vertex) continue;
            const int64_t slot = slots[(e * k + r.vertex) * k + vb];
            if (slot < 0 || ++count[slot] > 1) return false;
          }
        }
      }
    }
  }
  return std::all_of(count.begin(), count.end(), [](uint8_t c) { return c == 1; });
}

std::vector<jit::LoweredKernel> fused_kernels(Problem& p, const FusedOptions& options,
                                              bool off_single, bool gpu) {
  FusedOptions o = options;
  if (!gpu) o.staged = o.pre_reduce = o.warp_specialized = false;  // GPU layouts
  const bool off_direct = o.staged && o.jacobian && off_blocks_single_writer(p);
  std::vector<jit::LoweredKernel> out;
  for (size_t ti = 0; ti < p.n_terms(); ++ti) {
    const Term& t = p.term(ti);
    // Staged gather: the first term launched stores every node's rows; the rest add.
    if (!t.energy)
      out.push_back(
          jit::lower(*t.kernel, fused_lowering(p, t, o, off_single, off_direct, out.empty())));
  }
  return out;
}

template <class OffT>
HostAssembly<OffT>::HostAssembly(Problem& p, const FusedOptions& o) : problem_(p), options_(o) {
  auto lowered = fused_kernels(p, o, std::is_same_v<OffT, float>, /*gpu=*/false);
  for (size_t ti = 0; ti < p.n_terms(); ++ti) {
    const Term& t = p.term(ti);
    if (t.energy) continue;
    kernels_.push_back(std::make_unique<cpu::CpuKernel>(std::move(lowered[terms_.size()])));
    terms_.push_back(ti);
    incidence_.push_back(o.strategy == jit::AssemblyStrategy::GatherByColumn
                             ? mesh::build_incidence(p.n_nodes(), t.elements)
                             : mesh::Incidence{});
  }
}

template <class OffT>
void HostAssembly<OffT>::run(std::span<const double> state, std::vector<double>& residual,
                             mesh::SplitBlockCsr<OffT>& jacobian) const {
  Problem& p = problem_;  // off_pattern() is built on first use
  const int64_t B = p.block_size(), n = p.n_nodes();
  const auto expect = [&](const char* what, size_t got, size_t want) {
    if (got != want) {
      throw ProblemError("HostAssembly: " + std::string(what) + " has " + std::to_string(got) +
                         " values, expected " + std::to_string(want));
    }
  };
  expect("state", state.size(), n * B);
  expect("residual", residual.size(), n * B);
  if (options_.jacobian) {
    expect("Jacobian diagonal", jacobian.diag.size(), n * B * B);
    expect("Jacobian off-diagonal", jacobian.off.values.size(), p.off_pattern().n_blocks() * B * B);
  }
  for (size_t i = 0; i < terms_.size(); ++i) {
    const size_t ti = terms_[i];
    const Term& t = p.term(ti);
    const mesh::Incidence& inc = incidence_[i];
    jit::LaunchArgs a;
    a.n_elements = t.elements.size();
    a.conn = t.elements.conn.data();
    a.vertices_per_element = t.elements.k;
    a.fields.assign(t.input_vertex.size(), state.data());
    a.params = t.params.empty() ? nullptr : t.params.data();
    a.uniforms = t.uniforms;
    a.residual = residual.data();
    a.diag = jacobian.diag.data();
    a.off = jacobian.off.values.data();
    a.slots = p.off_pattern().element_slots(ti).data();
    a.inc_ptr = inc.ptr.empty() ? nullptr : inc.ptr.data();
    a.inc_element = inc.element.empty() ? nullptr : inc.element.data();
    a.inc_vertex = inc.local_vertex.empty() ? nullptr : inc.local_vertex.data();
    a.n_nodes = n;
    kernels_[i]->run(a);
  }
}

template class HostAssembly<float>;
template class HostAssembly<double>;

template <class OffT>
void assemble_on_host(Problem& p, std::span<const double> state, const FusedOptions& options,
                      std::vector<double>& residual, mesh::SplitBlockCsr<OffT>& jacobian) {
  HostAssembly<OffT>(p, options).run(state, residual, jacobian);
}

template void assemble_on_host<float>(Problem&, std::span<const double>, const FusedOptions&,
                                      std::vector<double>&, mesh::SplitBlockCsr<float>&);
template void assemble_on_host<double>(Problem&, std::span<const double>, const FusedOptions&,
                                       std::vector<double>&, mesh::SplitBlockCsr<double>&);

template <class OffT>
DeviceAssembly<OffT>::DeviceAssembly(Problem& p, const FusedOptions& o) : problem_(p), options_(o) {
  const auto& off_pattern = p.off_pattern();
  auto lowered = fused_kernels(p, o, std::is_same_v<OffT, float>, /*gpu=*/true);
  // Every vector term's kernel shares the decision; the first one may own the rows.
  off_direct_ = !lowered.empty() && lowered[0].options.assembly->off_direct;
  rows_stored_ = !lowered.empty() && lowered[0].options.assembly->store_rows;
  const bool owned = o.strategy == jit::AssemblyStrategy::GatherByColumn && o.staged;
  const int B = p.block_size();
  for (size_t ti = 0; ti < p.n_terms(); ++ti) {
    const Term& t = p.term(ti);
    if (t.energy) continue;
    kernels_.push_back(std::make_unique<cuda::CudaKernel>(std::move(lowered[terms_.size()])));
    terms_.push_back(ti);
    TermData d;
    d.n_elements = t.elements.size();
    d.conn = cuda::DeviceBuffer::from(t.elements.conn);
    if (!t.params.empty()) d.params = cuda::DeviceBuffer::from(t.params);
    d.slots = cuda::DeviceBuffer::from(off_pattern.element_slots(ti));
    if (owned) {
      const mesh::SideIncidence side = mesh::build_side_incidence(
          p.n_nodes(), t.elements,
          o.jacobian ? off_pattern.element_slots(ti) : std::span<const int64_t>{});
      const jit::LoweredKernel& lk = kernels_.back()->lowered();
      const int tile = lk.options.layout.block_threads();
      // A term that stores rows covers every node; one that adds skips nodes it never touches
      // (a far-field term: only the boundary nodes).
      const auto blocks = mesh::node_blocks(side, tile, jit::gather_max_nodes(tile),
                                            lk.options.assembly->store_rows);
      d.side_ptr = cuda::DeviceBuffer::from(side.ptr);
      d.side_element = cuda::DeviceBuffer::from(side.element);
      if (!side.slot.empty()) d.side_slot = cuda::DeviceBuffer::from(side.slot);
      d.node_blocks = cuda::DeviceBuffer::from(blocks);
      d.n_node_blocks = static_cast<int64_t>(blocks.size()) / 2;
    } else if (o.strategy == jit::AssemblyStrategy::GatherByColumn) {
      const mesh::Incidence inc = mesh::build_incidence(p.n_nodes(), t.elements);
      d.inc_ptr = cuda::DeviceBuffer::from(inc.ptr);
      d.inc_element = cuda::DeviceBuffer::from(inc.element);
      d.inc_vertex = cuda::DeviceBuffer::from(inc.local_vertex);
    }
    data_.push_back(std::move(d));
  }
  state_ = cuda::DeviceBuffer(p.n_nodes() * B * sizeof(double));
  residual_ = cuda::DeviceBuffer(p.n_nodes() * B * sizeof(double));
  diag_ = cuda::DeviceBuffer(p.n_nodes() * B * B * sizeof(double));
  off_ = cuda::DeviceBuffer(std::max<int64_t>(off_pattern.n_blocks(), 1) * B * B * sizeof(OffT));
}

template <class OffT>
void DeviceAssembly<OffT>::set_state(std::span<const double> state) {
  if (state.size() * sizeof(double) != state_.bytes()) {
    throw ProblemError("DeviceAssembly: state has " + std::to_string(state.size()) +
                       " values, expected " + std::to_string(state_.bytes() / sizeof(double)));
  }
  state_.upload(state.data(), state_.bytes());
}

template <class OffT>
void DeviceAssembly<OffT>::run(CUstream stream) {
  if (!rows_stored_) {  // else the first kernel stores every node's rows
    residual_.fill_bytes(0);
    if (options_.jacobian) diag_.fill_bytes(0);
  }
  if (options_.jacobian && !off_direct_) off_.fill_bytes(0);  // direct: every slot is stored
  for (size_t i = 0; i < terms_.size(); ++i) {
    const Term& t = problem_.term(terms_[i]);
    const TermData& d = data_[i];
    const auto ptr = [](const cuda::DeviceBuffer& b) { return b.get(); };
    jit::LaunchArgs a;
    a.n_elements = d.n_elements;
    a.conn = reinterpret_cast<const int32_t*>(ptr(d.conn));
    a.vertices_per_element = t.elements.k;
    a.fields.assign(t.input_vertex.size(), reinterpret_cast<const double*>(state_.get()));
    a.params = reinterpret_cast<const double*>(ptr(d.params));
    a.uniforms = t.uniforms;
    a.residual = reinterpret_cast<double*>(residual_.get());
    a.diag = reinterpret_cast<double*>(diag_.get());
    a.off = reinterpret_cast<void*>(off_.get());
    a.slots = reinterpret_cast<const int64_t*>(ptr(d.slots));
    a.inc_ptr = reinterpret_cast<const int64_t*>(ptr(d.inc_ptr));
    a.inc_element = reinterpret_cast<const int64_t*>(ptr(d.inc_element));
    a.inc_vertex = reinterpret_cast<const int8_t*>(ptr(d.inc_vertex));
    a.n_nodes = problem_.n_nodes();
    a.side_ptr = reinterpret_cast<const int64_t*>(ptr(d.side_ptr));
    a.side_element = reinterpret_cast<const int32_t*>(ptr(d.side_element));
    a.side_slot = reinterpret_cast<const int32_t*>(ptr(d.side_slot));
    a.node_blocks = reinterpret_cast<const int64_t*>(ptr(d.node_blocks));
    a.n_node_blocks = d.n_node_blocks;
    kernels_[i]->launch(a, stream);
  }
}

template <class OffT>
std::vector<double> DeviceAssembly<OffT>::residual() const {
  return residual_.to_vector<double>();
}

template <class OffT>
mesh::SplitBlockCsr<OffT> DeviceAssembly<OffT>::jacobian() const {
  const int B = problem_.block_size();
  auto m = mesh::SplitBlockCsr<OffT>::zeros(problem_.off_pattern(), B, B);
  diag_.download(m.diag.data(), m.diag.size() * sizeof(double));
  off_.download(m.off.values.data(), m.off.values.size() * sizeof(OffT));
  return m;
}

template class DeviceAssembly<float>;
template class DeviceAssembly<double>;

}  // namespace dualjit::assembly
