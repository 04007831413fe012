#include "backends/assembly/host_element_scatter.h"

#include "backends/assembly/element_rules.h"
#include "backends/assembly/strategies/element_scatter.h"

namespace dualjit::assembly {

HostElementScatter::HostElementScatter(Problem& problem, int width) : p_(problem), width_(width) {}

HostElementScatter::~HostElementScatter() = default;

std::vector<const cpu::CpuKernel*> HostElementScatter::kernels() const {
  std::vector<const cpu::CpuKernel*> out;
  for (const auto& [key, k] : kernels_)
    if (k) out.push_back(k.get());
  return out;
}

const cpu::CpuKernel& HostElementScatter::kernel(size_t term, Mode mode) {
  auto& k = kernels_[{term, mode}];
  if (!k) {
    const Term& t = p_.term(term);
    try {
      // The GPU's block size, so that both backends compile the same source.
      k = std::make_unique<cpu::CpuKernel>(
          jit::lower(*t.kernel, element_scatter_lowering(t, mode, p_.block_size(), width_, 128)));
    } catch (const ProblemError&) {
      throw;
    } catch (const std::exception& e) {
      throw ProblemError("term '" + t.name + "': element-scatter kernel (" +
                         std::string(mode_name(mode)) + "): " + e.what());
    }
  }
  return *k;
}

namespace {

jit::ElementLaunch inputs(const Term& t, const jit::LoweredKernel& l, Mode mode,
                          std::span<const double> state, std::span<const double> direction) {
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

}  // namespace

void HostElementScatter::rows(Mode mode, bool energy, std::span<const double> state,
                              std::span<const double> direction, std::vector<double>& out) {
  p_.check_values(state, "state");
  if (mode == Mode::Hvp) p_.check_values(direction, "HVP direction");
  out.assign(state.size(), 0.0);
  for (size_t ti = 0; ti < p_.n_terms(); ++ti) {
    const Term& t = p_.term(ti);
    if (t.energy != energy) continue;
    const cpu::CpuKernel& k = kernel(ti, mode);
    k.run(element_scatter_args(inputs(t, k.lowered(), mode, state, direction), out.data()));
  }
}

void HostElementScatter::blocks(Mode mode, bool energy, std::span<const double> state,
                                mesh::Symmetry symmetry, std::vector<double>& out) {
  p_.check_values(state, "state");
  const mesh::BlockPattern& pattern = p_.pattern(symmetry);
  for (size_t ti = 0; ti < p_.n_terms(); ++ti) {
    const Term& t = p_.term(ti);
    if (t.energy != energy) continue;
    auto& slots = slots_[{ti, symmetry}];
    if (slots.empty()) slots = stored_block_slots(pattern, ti);
    const cpu::CpuKernel& k = kernel(ti, mode);
    k.run(element_scatter_args(inputs(t, k.lowered(), mode, state, {}), out.data(), slots.data()));
  }
}

std::vector<double> HostElementScatter::gradient(std::span<const double> state) {
  std::vector<double> g;
  rows(Mode::Gradient, true, state, {}, g);
  return g;
}

std::vector<double> HostElementScatter::hvp(std::span<const double> state,
                                            std::span<const double> direction) {
  std::vector<double> h;
  rows(Mode::Hvp, true, state, direction, h);
  return h;
}

mesh::BlockCsr<double> HostElementScatter::hessian(std::span<const double> state,
                                                   mesh::Symmetry symmetry) {
  auto m = mesh::BlockCsr<double>::zeros(p_.pattern(symmetry), p_.block_size(), p_.block_size());
  blocks(Mode::Hessian, true, state, symmetry, m.values);
  return m;
}

mesh::BlockCsr<double> HostElementScatter::jacobian(std::span<const double> state) {
  auto m = mesh::BlockCsr<double>::zeros(p_.pattern(), p_.block_size(), p_.block_size());
  blocks(Mode::Jacobian, false, state, mesh::Symmetry::General, m.values);
  return m;
}

}  // namespace dualjit::assembly
