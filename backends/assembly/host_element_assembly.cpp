#include "backends/assembly/host_element_assembly.h"

#include <algorithm>

#include "jit/element_driver.h"

namespace dualjit::assembly {

const cpu::CpuKernel& HostElementAssembly::kernel_for(size_t term, Mode mode, bool sparse,
                                                      jit::FirstStores stores) {
  auto& k = kernels_[{term, mode, sparse, stores}];
  if (!k) {
    jit::LoweringOptions o = element_lowering(p_.term(term), mode, width_, rows_);
    o.sparse_jacobian = sparse;
    o.first_stores = stores;
    k = std::make_unique<cpu::CpuKernel>(jit::lower(p_.term(term).kernel_for(mode), o));
  }
  return *k;
}

std::vector<const cpu::CpuKernel*> HostElementAssembly::kernels() const {
  std::vector<const cpu::CpuKernel*> out;
  for (const auto& [key, k] : kernels_)
    if (k) out.push_back(k.get());
  for (const auto& [term, columns] : tape_columns_of_) {
    if (!columns) continue;
    for (const cpu::CpuKernel* k : columns->kernels()) out.push_back(k);
  }
  return out;
}

jit::ElementLaunch host_element_inputs(const Term& t, const jit::LoweredKernel& l, Mode mode,
                                       std::span<const double> state,
                                       std::span<const double> direction) {
  jit::ElementLaunch a;
  a.n_elements = t.elements.size();
  a.conn = t.elements.conn.data();
  a.vertices_per_element = t.elements.k;
  a.fields.assign(l.input_vertex.size(), state.data());
  if (mode == Mode::Hvp) a.directions.assign(l.input_vertex.size(), direction.data());
  a.params = t.params.empty() ? nullptr : t.params.data();
  a.uniforms = t.uniforms;
  return a;
}

jit::LoweringOptions element_lowering(const Term& t, Mode mode, int width, int rows) {
  jit::LoweringOptions o;
  o.mode = mode;
  o.width = width;
  if (mode == Mode::Jacobian) o.rows = rows;
  o.input_vertex = t.input_vertex;
  return o;
}

jit::FirstStores block_stores(BlockOrder order) {
  switch (order) {
    case BlockOrder::CellMajor:
      return jit::FirstStores::Staged;
    case BlockOrder::ComponentMajor:
      return jit::FirstStores::StagedComponentMajor;
    case BlockOrder::CellMajorColumns:
      break;
  }
  return jit::FirstStores::Tiled;  // column-major blocks: the untile transposes them
}

ElementResults HostElementAssembly::element_results(size_t term, Mode mode,
                                                    std::span<const double> state,
                                                    std::span<const double> direction) {
  if (term >= p_.n_terms()) {
    throw ProblemError("element results: term #" + std::to_string(term) + " of " +
                       std::to_string(p_.n_terms()));
  }
  p_.check_values(state, "state");
  if (mode == Mode::Hvp) p_.check_values(direction, "HVP direction");
  return run(term, mode, state, direction);
}

HostElementAssembly::Local HostElementAssembly::run(size_t term, Mode mode,
                                                    std::span<const double> state,
                                                    std::span<const double> direction, bool sparse,
                                                    jit::FirstStores stores) {
  const Term& t = p_.term(term);
  const cpu::CpuKernel& ck = kernel_for(term, mode, sparse, stores);
  const auto& l = ck.lowered();
  const int64_t ne = t.elements.size();
  Local out;
  out.values.resize(ne * l.plan.n_outputs);
  out.first.resize(jit::stored_elements(l.options.first_stores, ne) * l.first_size);
  out.second.resize(ne * l.second_size);
  jit::ElementLaunch a = host_element_inputs(t, l, mode, state, direction);
  a.values = out.values.data();
  a.first = out.first.empty() ? nullptr : out.first.data();
  a.second = out.second.empty() ? nullptr : out.second.data();
  if (l.tape_size > 0) {
    tape_.resize(static_cast<size_t>(jit::tape_doubles(l.tape_size, ne)));
    a.tape = tape_.data();
  }
  ck.run(a.args());
  return out;
}

std::vector<double> HostElementAssembly::residual(std::span<const double> state) {
  p_.check_values(state, "state");
  std::vector<double> r(state.size(), 0.0);
  const int B = p_.block_size();
  for (size_t ti = 0; ti < p_.n_terms(); ++ti) {
    const Term& t = p_.term(ti);
    if (t.energy) continue;
    const Local l = run(ti, Mode::Value, state);
    const int n_out = t.kernel->n_outputs(), k = t.elements.k;
    for (int64_t e = 0; e < t.elements.size(); ++e) {
      for (size_t o = 0; o < t.output_scatter.size(); ++o) {
        for (const Scatter& sc : t.output_scatter[o]) {
          double* row = r.data() + static_cast<int64_t>(t.elements.conn[e * k + sc.vertex]) * B;
          for (int i = 0; i < B; ++i) row[i] += sc.sign * l.values[e * n_out + o * B + i];
        }
      }
    }
  }
  return r;
}

std::vector<double> HostElementAssembly::jacobian_element_matrices(size_t ti,
                                                                   const Local& l) const {
  const Term& t = p_.term(ti);
  const int B = p_.block_size(), k = t.elements.k;
  const int n_in = t.kernel->n_inputs(), kb = k * B;
  const int64_t ne = t.elements.size();
  const size_t fs = static_cast<size_t>(t.kernel->n_outputs()) * n_in;
  std::vector<double> m(static_cast<size_t>(ne) * kb * kb, 0.0);
  for (int64_t e = 0; e < ne; ++e) {
    double* em = m.data() + e * kb * kb;
    const double* jac = l.first.data() + e * fs;
    for (size_t o = 0; o < t.output_scatter.size(); ++o) {
      for (const Scatter& sc : t.output_scatter[o]) {
        for (size_t s = 0; s < t.input_vertex.size(); ++s) {
          const int b = t.input_vertex[s];
          for (int i = 0; i < B; ++i) {
            for (int j = 0; j < B; ++j) {
              em[(sc.vertex * B + i) * kb + b * B + j] +=
                  sc.sign * jac[(o * B + i) * n_in + s * B + j];
            }
          }
        }
      }
    }
  }
  return m;
}

mesh::BlockCsr<double> HostElementAssembly::jacobian(std::span<const double> state) {
  p_.check_values(state, "state");
  auto m = mesh::BlockCsr<double>::zeros(p_.pattern(), p_.block_size(), p_.block_size());
  for (size_t ti = 0; ti < p_.n_terms(); ++ti) {
    if (p_.term(ti).energy) continue;
    mesh::add_element_blocks(m, ti, jacobian_element_matrices(ti, run(ti, Mode::Jacobian, state)));
  }
  return m;
}

template <class OffT>
mesh::SplitBlockCsr<OffT> HostElementAssembly::jacobian_split(std::span<const double> state) {
  p_.check_values(state, "state");
  auto m = mesh::SplitBlockCsr<OffT>::zeros(p_.off_pattern(), p_.block_size(), p_.block_size());
  for (size_t ti = 0; ti < p_.n_terms(); ++ti) {
    if (p_.term(ti).energy) continue;
    mesh::add_element_blocks(m, ti, jacobian_element_matrices(ti, run(ti, Mode::Jacobian, state)));
  }
  return m;
}

template mesh::SplitBlockCsr<float> HostElementAssembly::jacobian_split<float>(
    std::span<const double>);
template mesh::SplitBlockCsr<double> HostElementAssembly::jacobian_split<double>(
    std::span<const double>);

double HostElementAssembly::energy(std::span<const double> state) {
  p_.check_values(state, "state");
  double total = 0;
  for (size_t ti = 0; ti < p_.n_terms(); ++ti) {
    if (!p_.term(ti).energy) continue;
    for (double v : run(ti, Mode::Value, state).values) total += v;
  }
  return total;
}

std::vector<double> HostElementAssembly::gradient(std::span<const double> state) {
  p_.check_values(state, "state");
  std::vector<double> g(state.size(), 0.0);
  for (size_t ti = 0; ti < p_.n_terms(); ++ti) {
    const Term& t = p_.term(ti);
    if (!t.energy) continue;
    const Local l = run(ti, Mode::Gradient, state);
    const int n_in = t.kernel->n_inputs(), k = t.elements.k;
    for (int64_t e = 0; e < t.elements.size(); ++e) {
      for (size_t s = 0; s < t.input_vertex.size(); ++s) {
        double* row = g.data() + static_cast<int64_t>(t.elements.conn[e * k + t.input_vertex[s]]) *
                                     p_.block_size();
        for (int c = 0; c < p_.block_size(); ++c)
          row[c] += l.first[e * n_in + s * p_.block_size() + c];
      }
    }
  }
  return g;
}

std::vector<double> HostElementAssembly::hessian_element_matrices(size_t ti, const Local& l) const {
  const Term& t = p_.term(ti);
  const int B = p_.block_size(), k = t.elements.k, n = t.kernel->n_inputs(), kb = k * B;
  const int64_t ne = t.elements.size();
  const size_t ss = second_size(Mode::Hessian, n);
  std::vector<double> m(static_cast<size_t>(ne) * kb * kb, 0.0);
  for (int64_t e = 0; e < ne; ++e) {
    double* em = m.data() + e * kb * kb;
    const double* h = l.second.data() + e * ss;
    for (size_t sa = 0; sa < t.input_vertex.size(); ++sa) {
      for (size_t sb = 0; sb < t.input_vertex.size(); ++sb) {
        const int a = t.input_vertex[sa], b = t.input_vertex[sb];
        for (int i = 0; i < B; ++i) {
          for (int j = 0; j < B; ++j) {
            const int gi = static_cast<int>(sa) * B + i, gj = static_cast<int>(sb) * B + j;
            em[(a * B + i) * kb + b * B + j] +=
                h[packed_upper_index(n, std::min(gi, gj), std::max(gi, gj))];
          }
        }
      }
    }
  }
  return m;
}

mesh::BlockCsr<double> HostElementAssembly::hessian(std::span<const double> state,
                                                    mesh::Symmetry symmetry) {
  p_.check_values(state, "state");
  auto m = mesh::BlockCsr<double>::zeros(p_.pattern(symmetry), p_.block_size(), p_.block_size());
  for (size_t ti = 0; ti < p_.n_terms(); ++ti) {
    if (!p_.term(ti).energy) continue;
    mesh::add_element_blocks(m, ti, hessian_element_matrices(ti, run(ti, Mode::Hessian, state)));
  }
  return m;
}

std::vector<double> HostElementAssembly::hvp(std::span<const double> state,
                                             std::span<const double> direction) {
  p_.check_values(state, "state");
  p_.check_values(direction, "HVP direction");
  std::vector<double> hv(state.size(), 0.0);
  for (size_t ti = 0; ti < p_.n_terms(); ++ti) {
    const Term& t = p_.term(ti);
    if (!t.energy) continue;
    const Local l = run(ti, Mode::Hvp, state, direction);
    const int n_in = t.kernel->n_inputs(), k = t.elements.k;
    for (int64_t e = 0; e < t.elements.size(); ++e) {
      for (size_t s = 0; s < t.input_vertex.size(); ++s) {
        double* row = hv.data() + static_cast<int64_t>(t.elements.conn[e * k + t.input_vertex[s]]) *
                                      p_.block_size();
        for (int c = 0; c < p_.block_size(); ++c)
          row[c] += l.second[e * n_in + s * p_.block_size() + c];
      }
    }
  }
  return hv;
}

std::vector<double> HostElementAssembly::element_jacobians(size_t term,
                                                           std::span<const double> state,
                                                           BlockOrder order, bool sparse) {
  p_.check_values(state, "state");
  const Term& t = p_.term(term);
  if (tape_columns_ && !sparse) {
    auto [it, fresh] = tape_columns_of_.try_emplace(term);
    if (fresh) it->second = HostTapeColumns::make(t, tape_column_settings_);
    if (it->second) return it->second->run(t, state, order);
  }
  // As on the GPU: blocks in the order asked for from the kernel's stages, else tiles put in
  // that order.
  const jit::FirstStores stores = block_stores(order);
  Local l = run(term, Mode::Jacobian, state, {}, sparse, stores);
  const jit::LoweredKernel& lk = kernel_for(term, Mode::Jacobian, sparse, stores).lowered();
  if (jit::is_staged(lk.options.first_stores)) return std::move(l.first);
  return untiled(l.first, t.elements.size(), static_cast<int64_t>(lk.first_size), order,
                 sparse ? 1 : t.kernel->n_outputs());
}

std::vector<double> untiled(std::span<const double> tiles, int64_t elements, int64_t entries,
                            BlockOrder order, int n_out) {
  if (n_out < 1 || entries % n_out != 0) {
    throw ProblemError("untiled: blocks of " + std::to_string(entries) + " entries in " +
                       std::to_string(n_out) + " rows");
  }
  const int n_in = static_cast<int>(entries / n_out);
  const int64_t T = jit::kFirstTile;
  std::vector<double> out(static_cast<size_t>(elements * entries));
  for (int64_t e = 0; e < elements; ++e) {
    for (int64_t i = 0; i < entries; ++i) {
      out[static_cast<size_t>(block_offset(order, e, i, elements, n_out, n_in))] =
          tiles[static_cast<size_t>(((e / T) * entries + i) * T + e % T)];
    }
  }
  return out;
}

}  // namespace dualjit::assembly
