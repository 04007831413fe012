#include "backends/assembly/host_tape_columns.h"

#include <algorithm>

#include "backends/assembly/host_element_assembly.h"

namespace dualjit::assembly {

std::unique_ptr<HostTapeColumns> HostTapeColumns::make(const Term& term,
                                                       const TapeColumnsSettings& settings) {
  std::optional<TapeColumnsLaunches> l = tape_columns_launches(term, settings);
  if (!l) return nullptr;
  std::unique_ptr<HostTapeColumns> c(new HostTapeColumns);
  c->pattern_ = std::move(l->pattern);
  c->aux_size_ = l->aux_size;
  c->tapes_ = std::make_unique<cpu::CpuKernel>(std::move(l->tapes));
  if (l->gather) c->gather_ = std::make_unique<cpu::CpuKernel>(std::move(*l->gather));
  c->rest_ = std::make_unique<cpu::CpuKernel>(std::move(l->rest));
  c->fill_ = std::make_unique<cpu::CpuKernel>(std::move(l->fill));
  c->uncompiled_ = std::move(l->columns);
  c->uncompiled_expand_ = std::move(l->expand);
  c->direct_size_ = l->direct_size;
  return c;
}

std::vector<const cpu::CpuKernel*> HostTapeColumns::kernels() const {
  std::vector<const cpu::CpuKernel*> out = {tapes_.get(), rest_.get(), fill_.get()};
  if (gather_) out.push_back(gather_.get());
  if (expand_) out.push_back(expand_.get());
  for (const auto& [stores, columns] : columns_)
    for (const auto& k : columns) out.push_back(k.get());
  return out;
}

std::vector<double> HostTapeColumns::run(const Term& term, std::span<const double> state,
                                         BlockOrder order) {
  const ColumnStores stores = column_stores(order);
  const bool expands = stores == ColumnStores::DirectTiles;
  if (!columns_.contains(stores)) {
    for (jit::LoweredKernel& l : uncompiled_.at(stores))
      columns_[stores].push_back(std::make_unique<cpu::CpuKernel>(std::move(l)));
    uncompiled_.erase(stores);
    if (expands) {
      expand_ = std::make_unique<cpu::CpuKernel>(std::move(*uncompiled_expand_));
      uncompiled_expand_.reset();
    }
  }
  const Kernel& k = *term.kernel;
  const int64_t ne = term.elements.size();
  const int np = k.n_params(), nt = static_cast<int>(pattern_.tapes.size());
  // The tapes.
  std::vector<double> tape(static_cast<size_t>(jit::tape_doubles(pattern_.size, ne)));
  {
    const jit::LoweredKernel& l = tapes_->lowered();
    std::vector<double> values(static_cast<size_t>(ne * l.plan.n_outputs)),
        first(static_cast<size_t>(jit::stored_elements(l.options.first_stores, ne)) * l.first_size);
    jit::ElementLaunch a = host_element_inputs(term, l, Mode::Jacobian, state, {});
    a.values = values.data();
    a.first = first.empty() ? nullptr : first.data();
    a.tape = tape.data();
    tapes_->run(a.args());
  }
  // The rest kernel over each element's params and its tapes' values: gathered, tiled, where
  // the kernel has params; else read from the tape.
  const jit::LoweredKernel& rl = rest_->lowered();
  std::vector<double> params;
  if (gather_) {
    params.resize(static_cast<size_t>(jit::tape_doubles(np + nt, ne)));
    jit::ArgValues ga;
    ga.set("n_elements", ne).set("tape", tape.data());
    ga.set("params", term.params.empty() ? nullptr : term.params.data());
    ga.set("out", static_cast<const void*>(params.data()));
    gather_->run(ga);
  }
  std::vector<double> rest_values(static_cast<size_t>(jit::tape_doubles(rl.plan.n_outputs, ne))),
      rest_first(static_cast<size_t>(jit::stored_elements(rl.options.first_stores, ne)) *
                 rl.first_size);
  {
    jit::ElementLaunch a = host_element_inputs(term, rl, Mode::Jacobian, state, {});
    a.params = gather_ ? params.data() : tape.data();
    a.values = rest_values.data();
    a.first = rest_first.empty() ? nullptr : rest_first.data();
    rest_->run(a.args());
  }
  // The auxiliary array, then the columns.
  std::vector<double> aux(static_cast<size_t>(jit::tape_doubles(aux_size_, ne)));
  jit::ArgValues fa;
  fa.set("n_elements", ne).set("tape", tape.data()).set("rest_values", rest_values.data());
  fa.set("rest_first", rest_first.data()).set("aux", static_cast<const void*>(aux.data()));
  fill_->run(fa);
  const int64_t fs = static_cast<int64_t>(k.n_outputs()) * k.n_inputs();
  std::vector<double> out(static_cast<size_t>(ne * fs)), direct;
  if (expands) direct.resize(static_cast<size_t>(jit::tape_doubles(direct_size_, ne)));
  jit::ArgValues ca;
  ca.set("n_elements", ne).set("tape", tape.data()).set("aux", aux.data());
  ca.set("first", static_cast<const void*>(expands ? direct.data() : out.data()));
  for (const auto& columns : columns_.at(stores)) columns->run(ca);
  if (expands) {
    jit::ArgValues xa;
    xa.set("n_elements", ne).set("direct", direct.data()).set("aux", aux.data());
    xa.set("first", static_cast<const void*>(out.data()));
    expand_->run(xa);
  }
  return out;
}

}  // namespace dualjit::assembly
