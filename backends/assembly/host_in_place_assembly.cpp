#include "backends/assembly/host_in_place_assembly.h"

#include "backends/assembly/host_element_assembly.h"
#include "backends/assembly/strategies/in_place_strategy.h"

namespace dualjit::assembly {

// The GPU's default block size in the lowering, so that both backends compile the same source.
constexpr int kItemsPerBlock = 128;

HostInPlaceAssembly::HostInPlaceAssembly(Problem& problem, ElementStrategy vector_strategy,
                                         ElementStrategy matrix_strategy, int width,
                                         jit::HessianProjection projection)
    : p_(problem),
      vector_strategy_(vector_strategy),
      matrix_strategy_(matrix_strategy),
      width_(width),
      projection_(projection) {}

ElementStrategy HostInPlaceAssembly::strategy(Mode mode) const {
  const ElementStrategy s = mode_is_matrix(mode) ? matrix_strategy_ : vector_strategy_;
  if (s == ElementStrategy::Gather) {
    throw std::invalid_argument("HostInPlaceAssembly (" + std::string(mode_name(mode)) +
                                "): element-gather is not an in-place strategy");
  }
  return s;
}

HostInPlaceAssembly::~HostInPlaceAssembly() = default;

std::vector<const cpu::CpuKernel*> HostInPlaceAssembly::kernels() const {
  std::vector<const cpu::CpuKernel*> out;
  for (const auto& [key, k] : kernels_)
    if (k) out.push_back(k.get());
  return out;
}

const cpu::CpuKernel& HostInPlaceAssembly::kernel(size_t term, Mode mode,
                                                  const mesh::BlockPattern* pattern,
                                                  bool with_energy_gradient, bool node_terms) {
  auto& k = kernels_[{term, mode, pattern, with_energy_gradient, node_terms}];
  if (!k) {
    const Term& t = p_.term(term);
    const InPlaceStrategy& st = in_place_strategy(strategy(mode));
    std::vector<const Term*> evaluated;
    if (node_terms) {
      for (size_t ti : single_vertex_energy_terms(p_)) evaluated.push_back(&p_.term(ti));
    }
    try {
      k = std::make_unique<cpu::CpuKernel>(
          jit::lower(t.kernel_for(mode),
                     st.lowering(t, mode,
                                 {p_.block_size(), width_, kItemsPerBlock, pattern, projection_,
                                  with_energy_gradient, std::move(evaluated)})));
    } catch (const ProblemError&) {
      throw;
    } catch (const std::exception& e) {
      throw ProblemError("term '" + t.name +
                         "': " + std::string(element_strategy_name(strategy(mode))) + " kernel (" +
                         std::string(mode_name(mode)) + "): " + e.what());
    }
  }
  return *k;
}

const HostInPlaceAssembly::TermIncidence& HostInPlaceAssembly::incidence(size_t term) {
  auto it = incidence_.find(term);
  if (it == incidence_.end()) {
    const mesh::ElementSet& set = p_.term(term).elements;
    TermIncidence ti{mesh::build_incidence(p_.n_nodes(), set), {}, {}, {}};
    ti.side = mesh::incidence_side_offsets(ti.inc, set);
    ti.nodes = mesh::incidence_other_nodes(ti.inc, set);
    ti.active = mesh::nodes_with_elements(ti.inc);
    it = incidence_.emplace(term, std::move(ti)).first;
  }
  return it->second;
}

void HostInPlaceAssembly::run(size_t term, Mode mode, std::span<const double> state,
                              std::span<const double> direction, InPlaceTarget target,
                              const mesh::BlockPattern* pattern) {
  const Term& t = p_.term(term);
  const InPlaceStrategy& st = in_place_strategy(strategy(mode));
  const cpu::CpuKernel& k =
      kernel(term, mode, pattern, target.gradient != nullptr, !target.node_terms.empty());
  target.n_nodes = p_.n_nodes();
  if (st.needs_incidence()) {
    const TermIncidence& ti = incidence(term);
    target.inc_side = ti.side.data();
    target.inc_element = ti.inc.element.data();
    target.inc_nodes = ti.nodes.data();
    if (!ti.active.empty()) {
      target.active = ti.active.data();
      target.n_active = static_cast<int64_t>(ti.active.size());
    }
  }
  k.run(st.args(host_element_inputs(t, k.lowered(), mode, state, direction), target));
}

void HostInPlaceAssembly::rows(Mode mode, bool energy, std::span<const double> state,
                               std::span<const double> direction, std::vector<double>& out) {
  p_.check_values(state, "state");
  if (mode == Mode::Hvp) p_.check_values(direction, "HVP direction");
  out.assign(state.size(), 0.0);  // what adds_to_output() strategies start from
  bool first = true;
  for (size_t ti = 0; ti < p_.n_terms(); ++ti) {
    if (p_.term(ti).energy != energy) continue;
    InPlaceTarget target;
    target.out = out.data();
    target.accumulate = !first;
    run(ti, mode, state, direction, target, nullptr);
    first = false;
  }
}

void HostInPlaceAssembly::blocks(Mode mode, bool energy, std::span<const double> state,
                                 mesh::Symmetry symmetry, std::vector<double>& out,
                                 double* gradient, double* node_energy) {
  p_.check_values(state, "state");
  const mesh::BlockPattern& pattern = p_.pattern(symmetry);
  std::vector<int32_t>& row_ptr = row_ptr_[symmetry];  // built once per symmetry
  if (row_ptr.empty()) row_ptr = pattern.row_ptr32();
  const auto slots_of = [&](size_t ti) -> const std::vector<int32_t>& {
    auto& slots = slots_[{ti, symmetry}];
    if (slots.empty()) slots = stored_block_slots(pattern, ti);
    return slots;
  };
  // The single-vertex terms in the order of the kernels' node terms (the one list both take).
  const std::vector<size_t> single =
      mode == Mode::Hessian ? single_vertex_energy_terms(p_) : std::vector<size_t>{};
  std::vector<size_t> multi;
  for (size_t ti = 0; ti < p_.n_terms(); ++ti) {
    const Term& t = p_.term(ti);
    if (t.energy == energy && t.elements.k > 1) multi.push_back(ti);
  }
  InPlaceTarget extra;
  extra.gradient = gradient;
  extra.node_energy = node_energy;
  // As on the GPU (device_element_assembly.cpp): under a unit that evaluates_node_terms(), the
  // first multi-vertex term's kernel evaluates the single-vertex terms at its nodes.
  const bool fold = mode == Mode::Hessian &&
                    in_place_strategy(strategy(mode)).evaluates_node_terms() && !single.empty() &&
                    !multi.empty();
  bool first = true;  // out comes zeroed (BlockCsr::zeros)
  if (fold) {
    std::vector<int32_t>& diag_slot = diag_slot_[symmetry];
    if (diag_slot.empty()) {
      diag_slot.resize(p_.n_nodes());
      for (int64_t i = 0; i < p_.n_nodes(); ++i)
        diag_slot[i] = static_cast<int32_t>(pattern.diag_index(i));
    }
    extra.diagonal_slot = diag_slot.data();
    for (size_t ti : single) {
      const Term& t = p_.term(ti);
      const TermIncidence& inc = incidence(ti);
      extra.node_terms.push_back(
          {inc.side.data(), inc.inc.element.data(), t.params.data(), t.uniforms});
    }
    for (size_t ti : multi) {
      InPlaceTarget target = extra;
      target.out = out.data();
      target.accumulate = !first;
      target.accumulate_energy_gradient = !first;
      target.row_ptr = row_ptr.data();
      target.slots = slots_of(ti).data();
      run(ti, mode, state, {}, target, &pattern);
      extra.node_terms.clear();  // evaluated once, by the term that stores the rows
      extra.diagonal_slot = nullptr;
      first = false;
    }
    return;
  }
  for (size_t ti = 0; ti < p_.n_terms(); ++ti) {
    if (p_.term(ti).energy != energy) continue;
    InPlaceTarget target = extra;
    target.out = out.data();
    target.accumulate = !first;
    target.accumulate_energy_gradient = !first;
    target.row_ptr = row_ptr.data();
    target.slots = slots_of(ti).data();
    run(ti, mode, state, {}, target, &pattern);
    first = false;
  }
}

std::vector<double> HostInPlaceAssembly::gradient(std::span<const double> state) {
  std::vector<double> g;
  rows(Mode::Gradient, true, state, {}, g);
  return g;
}

std::vector<double> HostInPlaceAssembly::hvp(std::span<const double> state,
                                             std::span<const double> direction) {
  std::vector<double> h;
  rows(Mode::Hvp, true, state, direction, h);
  return h;
}

mesh::BlockCsr<double> HostInPlaceAssembly::hessian(std::span<const double> state,
                                                    mesh::Symmetry symmetry) {
  auto m = mesh::BlockCsr<double>::zeros(p_.pattern(symmetry), p_.block_size(), p_.block_size());
  blocks(Mode::Hessian, true, state, symmetry, m.values);
  return m;
}

mesh::BlockCsr<double> HostInPlaceAssembly::hessian_with_energy_gradient(
    std::span<const double> state, mesh::Symmetry symmetry, std::vector<double>& gradient,
    double& energy) {
  if (!in_place_strategy(strategy(Mode::Hessian)).sums_energy_gradient()) {
    throw std::invalid_argument(
        "HostInPlaceAssembly: " + std::string(element_strategy_name(matrix_strategy_)) +
        " sums no energy or gradient with the Hessian");
  }
  auto m = mesh::BlockCsr<double>::zeros(p_.pattern(symmetry), p_.block_size(), p_.block_size());
  // Zero for a problem without energy terms (no kernel writes them then).
  gradient.assign(state.size(), 0.0);
  std::vector<double> node_energy(p_.n_nodes(), 0.0);
  blocks(Mode::Hessian, true, state, symmetry, m.values, gradient.data(), node_energy.data());
  energy = 0;
  for (double e : node_energy) energy += e;
  return m;
}

mesh::BlockCsr<double> HostInPlaceAssembly::jacobian(std::span<const double> state) {
  auto m = mesh::BlockCsr<double>::zeros(p_.pattern(), p_.block_size(), p_.block_size());
  blocks(Mode::Jacobian, false, state, mesh::Symmetry::General, m.values);
  return m;
}

}  // namespace dualjit::assembly
