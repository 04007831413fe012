#include "backends/assembly/fused_assembly.h"

#include <algorithm>
#include <type_traits>

#include <spdlog/spdlog.h>

namespace dualjit::assembly {
namespace {

FusedSpec fused_spec(const Problem& p, const Term& t, const FusedOptions& o, bool off_single) {
  FusedSpec spec;
  spec.vertices = t.elements.k;
  spec.block = p.block_size();
  for (const auto& rules : t.output_scatter) {
    spec.output_scatter.emplace_back();
    for (const Scatter& sc : rules) spec.output_scatter.back().emplace_back(sc.vertex, sc.sign);
  }
  spec.jacobian = o.jacobian;
  spec.off_single = off_single;
  spec.pre_reduce = o.pre_reduce;
  return spec;
}

// The common arguments of a term's launch, with pointers where the kernel reads.
jit::ArgValues common_args(const Term& t, const void* state, const void* conn, const void* params) {
  jit::ArgValues a;
  a.set("n_elements", t.elements.size());
  a.set("conn", conn);
  a.set("vertices_per_element", static_cast<int64_t>(t.elements.k));
  a.set("field", std::vector<const void*>(t.input_vertex.size(), state));
  a.set("params", params);
  a.set_doubles("uniform", t.uniforms);
  return a;
}

// The slots a term's kernel writes Aoff through: the off pattern's (by rows) or the
// edge-based storage order's when one is given.
std::span<const int64_t> term_slots(Problem& p, size_t term, const OffElementOrder& order) {
  if (!order.element_slots.empty()) return order.element_slots[term];
  return p.off_pattern().element_slots(term);
}

}  // namespace

bool off_blocks_single_writer(Problem& p) {
  const auto& pattern = p.off_pattern();
  std::vector<uint8_t> count(pattern.n_blocks(), 0);
  bool single = true;
  for_each_off_write(p, [&](size_t ti, int64_t, size_t at) {
    const int64_t slot = pattern.element_slots(ti)[at];
    single = slot >= 0 && ++count[slot] == 1;
    return single;
  });
  return single && std::all_of(count.begin(), count.end(), [](uint8_t c) { return c == 1; });
}

namespace {

int strategy_default_width(const std::string& name, int vertices, int block) {
  return make_fused_strategy(name, {})->default_width(vertices, block);
}

}  // namespace

std::vector<FusedKernel> fused_kernels(Problem& p, const FusedOptions& o, bool off_single,
                                       bool gpu) {
  std::string name = o.strategy;
  if (!gpu) name = make_fused_strategy(name, {})->host_form();
  const bool single_writer = o.jacobian && off_blocks_single_writer(p);
  std::vector<FusedKernel> out;
  for (size_t ti = 0; ti < p.n_terms(); ++ti) {
    const Term& t = p.term(ti);
    if (t.energy) continue;
    FusedSpec spec = fused_spec(p, t, o, off_single);
    spec.single_writer = single_writer;
    spec.first_term = out.empty();
    jit::LoweringOptions lo;
    lo.mode = o.jacobian ? Mode::Jacobian : Mode::Value;
    lo.layout = o.layout;
    lo.input_vertex = t.input_vertex;
    lo.single_tangents = o.single_tangents && o.jacobian;
    lo.compile_effort = o.compile_effort;
    auto lower_with = [&](std::string_view strategy_name) {
      lo.width = o.width > 0 ? o.width
                             : strategy_default_width(std::string(strategy_name), t.elements.k,
                                                      p.block_size());
      auto strategy = make_fused_strategy(strategy_name, spec);
      lo.driver = strategy;
      return FusedKernel{strategy, jit::lower(t.kernel_for(lo.mode), lo)};
    };
    try {
      out.push_back(lower_with(name));
    } catch (const StrategyUnfit& e) {
      // A staged strategy whose block does not fit (a big block size B, as kinetics' ns + 1)
      // hands the term to its unstaged form, which computes the same.
      const std::string_view fallback = make_fused_strategy(name, {})->host_form();
      if (fallback == name) throw;
      spdlog::info("dualjit: {}; term '{}' uses {}", e.what(), t.name, fallback);
      out.push_back(lower_with(fallback));
    }
  }
  return out;
}

// A vector term's kernel and its structure where the kernel runs.
template <class OffT>
struct HostFusedAssembly<OffT>::Term {
  size_t index;
  std::shared_ptr<const FusedStrategy> strategy;
  TermStructure structure;
};

template <class OffT>
HostFusedAssembly<OffT>::HostFusedAssembly(Problem& p, const FusedOptions& o)
    : problem_(p), options_(o) {
  auto fused = fused_kernels(p, o, std::is_same_v<OffT, float>, /*gpu=*/false);
  OffElementOrder order;
  if (o.jacobian && o.off_order == OffOrder::elements) order = off_element_order(p);
  size_t k = 0;
  for (size_t ti = 0; ti < p.n_terms(); ++ti) {
    if (p.term(ti).energy) continue;
    FusedKernel& f = fused[k++];
    TermStructure st = f.strategy->structure({p, ti, term_slots(p, ti, order), f.lowered});
    kernels_.push_back(std::make_unique<cpu::CpuKernel>(std::move(f.lowered)));
    terms_.push_back({ti, f.strategy, std::move(st)});
  }
  storage_of_block_ = std::move(order.storage_of_block);
}

template <class OffT>
HostFusedAssembly<OffT>::~HostFusedAssembly() = default;

template <class OffT>
void HostFusedAssembly<OffT>::run(std::span<const double> state, std::vector<double>& residual,
                                  mesh::SplitBlockCsr<OffT>& jacobian) const {
  Problem& p = problem_;
  const int64_t B = p.block_size(), n = p.n_nodes();
  const auto expect = [&](const char* what, size_t got, size_t want) {
    if (got != want) {
      throw ProblemError("HostFusedAssembly: " + std::string(what) + " has " + std::to_string(got) +
                         " values, expected " + std::to_string(want));
    }
  };
  expect("state", state.size(), n * B);
  expect("residual", residual.size(), n * B);
  if (options_.jacobian) {
    expect("Jacobian diagonal", jacobian.diag.size(), n * B * B);
    expect("Jacobian off-diagonal", jacobian.off.values.size(), p.off_pattern().n_blocks() * B * B);
  }
  const bool by_elements = options_.jacobian && options_.off_order == OffOrder::elements;
  if (by_elements) off_elements_.assign(jacobian.off.values.size(), OffT(0));
  for (size_t i = 0; i < terms_.size(); ++i) {
    const Term& term = terms_[i];
    const assembly::Term& t = p.term(term.index);
    jit::ArgValues a = common_args(t, state.data(), t.elements.conn.data(),
                                   t.params.empty() ? nullptr : t.params.data());
    a.set("residual", residual.data());
    if (options_.jacobian) {
      a.set("diag", jacobian.diag.data());
      a.set("off", by_elements ? off_elements_.data() : jacobian.off.values.data());
    }
    for (const TermStructure::Array& arr : term.structure.arrays)
      a.set(arr.field, arr.bytes.empty() ? nullptr : arr.bytes.data());
    for (const auto& [field, value] : term.structure.counts) a.set(field, value);
    kernels_[i]->run(a);
  }
  if (by_elements) {
    // The kernels add into the caller's zeroed Jacobian; so does the permutation.
    std::vector<OffT> rows(off_elements_.size());
    off_rows_from_elements<OffT>(off_elements_, storage_of_block_, int(B * B), rows);
    for (size_t v = 0; v < rows.size(); ++v) jacobian.off.values[v] += rows[v];
  }
}

template class HostFusedAssembly<float>;
template class HostFusedAssembly<double>;

template <class OffT>
struct DeviceFusedAssembly<OffT>::Term {
  size_t index;
  cuda::DeviceBuffer conn, params;
  std::vector<std::pair<std::string, cuda::DeviceBuffer>> arrays;  // the strategy's structure
  std::vector<std::pair<std::string, int64_t>> counts;
  // rows_before[e]: one more than the largest node elements 0..e-1 touch (built on the
  // first run over a prefix of elements).
  std::vector<int64_t> rows_before;
};

template <class OffT>
DeviceFusedAssembly<OffT>::DeviceFusedAssembly(Problem& p, const FusedOptions& o)
    : problem_(p), options_(o) {
  const mesh::BlockPattern& off_pattern = p.off_pattern();
  auto fused = fused_kernels(p, o, std::is_same_v<OffT, float>, /*gpu=*/true);
  OffElementOrder order;
  if (o.jacobian && o.off_order == OffOrder::elements) order = off_element_order(p);
  // The first kernel may store every node's rows; all share the decision on Aoff.
  zero_rows_ = fused.empty() || !fused[0].strategy->stores_rows();
  zero_off_ = fused.empty() || !fused[0].strategy->stores_off();
  const int B = p.block_size();
  size_t k = 0;
  for (size_t ti = 0; ti < p.n_terms(); ++ti) {
    const assembly::Term& t = p.term(ti);
    if (t.energy) continue;
    FusedKernel& f = fused[k++];
    Term d;
    d.index = ti;
    d.conn = cuda::DeviceBuffer::from(t.elements.conn);
    if (!t.params.empty()) d.params = cuda::DeviceBuffer::from(t.params);
    TermStructure st = f.strategy->structure({p, ti, term_slots(p, ti, order), f.lowered});
    for (TermStructure::Array& arr : st.arrays) {
      cuda::DeviceBuffer b(arr.bytes.size());
      if (!arr.bytes.empty()) b.upload(arr.bytes.data(), arr.bytes.size());
      d.arrays.emplace_back(arr.field, std::move(b));
    }
    d.counts = std::move(st.counts);
    kernels_.push_back(std::make_unique<cuda::CudaKernel>(std::move(f.lowered)));
    terms_.push_back(std::move(d));
  }
  residual_ = cuda::DeviceBuffer(p.n_nodes() * B * sizeof(double));
  // A residual-only assembly holds no Jacobian: for big blocks (kinetics' ns + 1) it would be
  // most of the device's memory.
  if (options_.jacobian) {
    diag_ = cuda::DeviceBuffer(p.n_nodes() * B * B * sizeof(double));
    off_ = cuda::DeviceBuffer(std::max<int64_t>(off_pattern.n_blocks(), 1) * B * B * sizeof(OffT));
    if (!order.storage_of_block.empty())
      storage_of_block_ = cuda::DeviceBuffer::from(order.storage_of_block);
  }
}

template <class OffT>
DeviceFusedAssembly<OffT>::~DeviceFusedAssembly() = default;

template <class OffT>
void DeviceFusedAssembly<OffT>::run(const double* state, CUstream stream, int64_t elements) {
  int64_t rows = problem_.n_nodes();
  if (elements >= 0) {
    rows = 0;
    for (size_t i = 0; i < terms_.size(); ++i) {
      Term& d = terms_[i];
      const assembly::Term& t = problem_.term(d.index);
      const std::string& name = kernels_[i]->lowered().kernel_name;
      if (elements > t.elements.size()) {
        throw ProblemError("kernel '" + name + "': the first " + std::to_string(elements) +
                           " elements of " + std::to_string(t.elements.size()));
      }
      if (kernels_[i]->lowered().launch.items != "n_elements") {
        throw ProblemError("kernel '" + name + "': " + options_.strategy + " runs a thread per " +
                           kernels_[i]->lowered().launch.items +
                           ", not per element: it cannot run a prefix of the elements");
      }
      if (d.rows_before.empty()) {
        d.rows_before.assign(t.elements.size() + 1, 0);
        for (int64_t e = 0; e < t.elements.size(); ++e) {
          int64_t most = d.rows_before[e];
          for (int v = 0; v < t.elements.k; ++v)
            most = std::max<int64_t>(most, t.elements.conn[e * t.elements.k + v] + 1);
          d.rows_before[e + 1] = most;
        }
      }
      rows = std::max(rows, d.rows_before[elements]);
    }
  }
  const auto B = static_cast<size_t>(problem_.block_size());
  // Zeroing goes on the assembly's stream, so it is ordered before the kernels.
  if (zero_rows_) {
    residual_.fill_bytes_async(0, stream, size_t(rows) * B * sizeof(double));
    if (options_.jacobian) diag_.fill_bytes_async(0, stream, size_t(rows) * B * B * sizeof(double));
  }
  if (options_.jacobian && zero_off_) off_.fill_bytes_async(0, stream);
  const auto dev = [](const cuda::DeviceBuffer& b) {
    return reinterpret_cast<const void*>(static_cast<uintptr_t>(b.get()));
  };
  for (size_t i = 0; i < terms_.size(); ++i) {
    const Term& d = terms_[i];
    const assembly::Term& t = problem_.term(d.index);
    jit::ArgValues a = common_args(t, state, dev(d.conn), dev(d.params));
    if (elements >= 0) a.set("n_elements", elements);
    a.set("residual", dev(residual_));
    if (options_.jacobian) {
      a.set("diag", dev(diag_));
      a.set("off", dev(off_));
    }
    for (const auto& [field, buffer] : d.arrays) a.set(field, dev(buffer));
    for (const auto& [field, value] : d.counts) a.set(field, value);
    kernels_[i]->launch(a, stream);
  }
}

template <class OffT>
std::vector<double> DeviceFusedAssembly<OffT>::residual() const {
  return residual_.to_vector<double>();
}

template <class OffT>
mesh::SplitBlockCsr<OffT> DeviceFusedAssembly<OffT>::jacobian() const {
  if (!options_.jacobian) {
    const std::string kernel = problem_.n_terms() > 0
                                   ? problem_.term(0).kernel_for(Mode::Value).name()
                                   : std::string("none");
    throw ProblemError("DeviceFusedAssembly (first kernel '" + kernel +
                       "'): jacobian() of an assembly built for the residual alone");
  }
  const int B = problem_.block_size();
  auto m = mesh::SplitBlockCsr<OffT>::zeros(problem_.off_pattern(), B, B);
  diag_.download(m.diag.data(), m.diag.size() * sizeof(double));
  if (options_.off_order == OffOrder::rows) {
    off_.download(m.off.values.data(), m.off.values.size() * sizeof(OffT));
  } else if (!m.off.values.empty()) {
    std::vector<OffT> elements(m.off.values.size());
    off_.download(elements.data(), elements.size() * sizeof(OffT));
    const auto storage = storage_of_block_.to_vector<int32_t>();
    off_rows_from_elements<OffT>(elements, storage, B * B, m.off.values);
  }
  return m;
}

template class DeviceFusedAssembly<float>;
template class DeviceFusedAssembly<double>;

template <class OffT>
void off_rows_from_elements(std::span<const OffT> elements,
                            std::span<const int32_t> storage_of_block, int bb,
                            std::span<OffT> rows) {
  for (size_t b = 0; b < storage_of_block.size(); ++b) {
    const OffT* from = elements.data() + int64_t(storage_of_block[b]) * bb;
    std::copy(from, from + bb, rows.data() + int64_t(b) * bb);
  }
}

template void off_rows_from_elements<float>(std::span<const float>, std::span<const int32_t>, int,
                                            std::span<float>);
template void off_rows_from_elements<double>(std::span<const double>, std::span<const int32_t>, int,
                                             std::span<double>);

}  // namespace dualjit::assembly
