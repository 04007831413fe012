#include "backends/assembly/problem.h"

#include <algorithm>

#include "jit/element_driver.h"

namespace dualjit::assembly {
namespace {

std::string term_label(const Term& t) {
  return "term '" + t.name + "'";
}

}  // namespace

Problem::Problem(int64_t n_nodes, int block_size) : n_nodes_(n_nodes), block_(block_size) {
  if (n_nodes < 0 || block_size <= 0) {
    throw ProblemError("problem: need n_nodes >= 0 and block size > 0");
  }
}

size_t Problem::add_term(Term t) {
  const std::string what = term_label(t);
  if (!t.kernel) throw ProblemError(what + ": no kernel");
  const Kernel& k = *t.kernel;
  const auto inputs = k.slots_of(SlotKind::Input);
  for (const Slot& s : inputs) {
    if (s.size != block_) {
      throw ProblemError(what + ": input slot '" + s.name + "' has " + std::to_string(s.size) +
                         " components, the problem's node field has " + std::to_string(block_));
    }
  }
  if (t.input_vertex.empty()) {
    for (size_t s = 0; s < inputs.size(); ++s) t.input_vertex.push_back(static_cast<int>(s));
  }
  if (t.input_vertex.size() != inputs.size()) {
    throw ProblemError(what + ": binding names " + std::to_string(t.input_vertex.size()) +
                       " vertices for " + std::to_string(inputs.size()) + " input slots");
  }
  for (size_t s = 0; s < inputs.size(); ++s) {
    const int v = t.input_vertex[s];
    if (v < 0 || v >= t.elements.k) {
      throw ProblemError(what + ": input slot '" + inputs[s].name + "' bound to vertex " +
                         std::to_string(v) + " of " + std::to_string(t.elements.k) +
                         "-vertex elements");
    }
    for (size_t r = 0; r < s; ++r) {
      if (t.input_vertex[r] == v) {
        throw ProblemError(what + ": input slots '" + inputs[r].name + "' and '" + inputs[s].name +
                           "' bound to the same vertex " + std::to_string(v));
      }
    }
  }
  if (t.energy) {
    if (!k.scalar_output()) throw ProblemError(what + ": an energy term needs a scalar output");
  } else {
    const auto outputs = k.slots_of(SlotKind::Output);
    if (t.output_scatter.empty()) t.output_scatter.assign(outputs.size(), {Scatter{0, 1.0}});
    if (t.output_scatter.size() != outputs.size()) {
      throw ProblemError(what + ": scatter rules for " + std::to_string(t.output_scatter.size()) +
                         " output slots, the kernel has " + std::to_string(outputs.size()));
    }
    for (size_t o = 0; o < outputs.size(); ++o) {
      if (outputs[o].size != block_) {
        throw ProblemError(what + ": output slot '" + outputs[o].name + "' has " +
                           std::to_string(outputs[o].size) + " components, rows need " +
                           std::to_string(block_));
      }
      for (const Scatter& sc : t.output_scatter[o]) {
        if (sc.vertex < 0 || sc.vertex >= t.elements.k) {
          throw ProblemError(what + ": output '" + outputs[o].name + "' scattered to vertex " +
                             std::to_string(sc.vertex) + " of " + std::to_string(t.elements.k) +
                             "-vertex elements");
        }
      }
    }
  }
  try {
    mesh::validate(t.elements, n_nodes_);
  } catch (const mesh::MeshError& e) {
    throw ProblemError(what + ": " + e.what());
  }
  const size_t want_params = static_cast<size_t>(t.elements.size()) * k.n_params();
  if (t.params.size() != want_params) {
    throw ProblemError(what + ": params hold " + std::to_string(t.params.size()) +
                       " values, expected " + std::to_string(want_params) + " (" +
                       std::to_string(t.elements.size()) + " elements x " +
                       std::to_string(k.n_params()) + ")");
  }
  if (t.uniforms.size() != static_cast<size_t>(k.n_uniforms())) {
    throw ProblemError(what + ": " + std::to_string(t.uniforms.size()) +
                       " uniforms given, the "
                       "kernel has " +
                       std::to_string(k.n_uniforms()));
  }
  terms_.push_back(std::move(t));
  patterns_.clear();  // the sparsity now includes this term
  off_pattern_.reset();
  return terms_.size() - 1;
}

const mesh::BlockPattern& Problem::pattern(mesh::Symmetry symmetry) {
  auto& p = patterns_[symmetry];
  if (!p) {
    std::vector<const mesh::ElementSet*> sets;
    for (const Term& t : terms_) sets.push_back(&t.elements);
    p = std::make_unique<mesh::BlockPattern>(mesh::BlockPattern::build(n_nodes_, sets, symmetry));
  }
  return *p;
}

void Problem::check_state(std::span<const double> state, const char* what) const {
  if (state.size() != static_cast<size_t>(n_nodes_) * block_) {
    throw ProblemError(std::string("problem: ") + what + " has " + std::to_string(state.size()) +
                       " values, expected " + std::to_string(n_nodes_ * block_) + " (" +
                       std::to_string(n_nodes_) + " nodes x " + std::to_string(block_) + ")");
  }
}

const cpu::CpuKernel& Problem::kernel_for(size_t term, Mode mode) {
  auto& k = kernels_[{term, mode}];
  if (!k) {
    k = std::make_unique<cpu::CpuKernel>(
        jit::lower(*terms_[term].kernel, element_lowering(term, mode)));
  }
  return *k;
}

jit::LoweringOptions Problem::element_lowering(size_t term, Mode mode) const {
  jit::LoweringOptions o;
  o.mode = mode;
  o.input_vertex = terms_.at(term).input_vertex;
  return o;
}

Problem::ElementResults Problem::element_results(size_t term, Mode mode,
                                                 std::span<const double> state,
                                                 std::span<const double> direction) {
  if (term >= terms_.size()) {
    throw ProblemError("problem: term #" + std::to_string(term) + " of " +
                       std::to_string(terms_.size()));
  }
  check_state(state, "state");
  if (mode == Mode::Hvp) check_state(direction, "HVP direction");
  return run(term, mode, state, direction);
}

Problem::Local Problem::run(size_t term, Mode mode, std::span<const double> state,
                            std::span<const double> direction) {
  const Term& t = terms_[term];
  const cpu::CpuKernel& ck = kernel_for(term, mode);
  const auto& l = ck.lowered();
  const int64_t ne = t.elements.size();
  Local out;
  out.values.resize(ne * l.plan.n_outputs);
  out.first.resize(ne * l.first_size);
  out.second.resize(ne * l.second_size);
  jit::ElementLaunch a;
  a.n_elements = ne;
  a.conn = t.elements.conn.data();
  a.vertices_per_element = t.elements.k;
  a.fields.assign(t.input_vertex.size(), state.data());
  if (mode == Mode::Hvp) a.directions.assign(t.input_vertex.size(), direction.data());
  a.params = t.params.empty() ? nullptr : t.params.data();
  a.uniforms = t.uniforms;
  a.values = out.values.data();
  a.first = out.first.empty() ? nullptr : out.first.data();
  a.second = out.second.empty() ? nullptr : out.second.data();
  ck.run(a.args());
  return out;
}

std::vector<double> Problem::residual(std::span<const double> state) {
  check_state(state, "state");
  std::vector<double> r(state.size(), 0.0);
  const int B = block_;
  for (size_t ti = 0; ti < terms_.size(); ++ti) {
    const Term& t = terms_[ti];
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

std::vector<double> Problem::jacobian_element_matrices(size_t ti, const Local& l) const {
  const Term& t = terms_[ti];
  const int B = block_, k = t.elements.k;
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

mesh::BlockCsr<double> Problem::jacobian(std::span<const double> state) {
  check_state(state, "state");
  auto m = mesh::BlockCsr<double>::zeros(pattern(), block_, block_);
  for (size_t ti = 0; ti < terms_.size(); ++ti) {
    if (terms_[ti].energy) continue;
    mesh::add_element_blocks(m, ti, jacobian_element_matrices(ti, run(ti, Mode::Jacobian, state)));
  }
  return m;
}

const mesh::BlockPattern& Problem::off_pattern() {
  if (!off_pattern_) {
    off_pattern_ = std::make_unique<mesh::BlockPattern>(pattern().without_diagonal());
  }
  return *off_pattern_;
}

template <class OffT>
mesh::SplitBlockCsr<OffT> Problem::jacobian_split(std::span<const double> state) {
  check_state(state, "state");
  auto m = mesh::SplitBlockCsr<OffT>::zeros(off_pattern(), block_, block_);
  for (size_t ti = 0; ti < terms_.size(); ++ti) {
    if (terms_[ti].energy) continue;
    mesh::add_element_blocks(m, ti, jacobian_element_matrices(ti, run(ti, Mode::Jacobian, state)));
  }
  return m;
}

template mesh::SplitBlockCsr<float> Problem::jacobian_split<float>(std::span<const double>);
template mesh::SplitBlockCsr<double> Problem::jacobian_split<double>(std::span<const double>);

double Problem::energy(std::span<const double> state) {
  check_state(state, "state");
  double total = 0;
  for (size_t ti = 0; ti < terms_.size(); ++ti) {
    if (!terms_[ti].energy) continue;
    for (double v : run(ti, Mode::Value, state).values) total += v;
  }
  return total;
}

std::vector<double> Problem::gradient(std::span<const double> state) {
  check_state(state, "state");
  std::vector<double> g(state.size(), 0.0);
  for (size_t ti = 0; ti < terms_.size(); ++ti) {
    const Term& t = terms_[ti];
    if (!t.energy) continue;
    const Local l = run(ti, Mode::Gradient, state);
    const int n_in = t.kernel->n_inputs(), k = t.elements.k;
    for (int64_t e = 0; e < t.elements.size(); ++e) {
      for (size_t s = 0; s < t.input_vertex.size(); ++s) {
        double* row =
            g.data() + static_cast<int64_t>(t.elements.conn[e * k + t.input_vertex[s]]) * block_;
        for (int c = 0; c < block_; ++c) row[c] += l.first[e * n_in + s * block_ + c];
      }
    }
  }
  return g;
}

std::vector<double> Problem::hessian_element_matrices(size_t ti, const Local& l) const {
  const Term& t = terms_[ti];
  const int B = block_, k = t.elements.k, n = t.kernel->n_inputs(), kb = k * B;
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

mesh::BlockCsr<double> Problem::hessian(std::span<const double> state, mesh::Symmetry symmetry) {
  check_state(state, "state");
  auto m = mesh::BlockCsr<double>::zeros(pattern(symmetry), block_, block_);
  for (size_t ti = 0; ti < terms_.size(); ++ti) {
    if (!terms_[ti].energy) continue;
    mesh::add_element_blocks(m, ti, hessian_element_matrices(ti, run(ti, Mode::Hessian, state)));
  }
  return m;
}

std::vector<double> Problem::hvp(std::span<const double> state, std::span<const double> direction) {
  check_state(state, "state");
  check_state(direction, "HVP direction");
  std::vector<double> hv(state.size(), 0.0);
  for (size_t ti = 0; ti < terms_.size(); ++ti) {
    const Term& t = terms_[ti];
    if (!t.energy) continue;
    const Local l = run(ti, Mode::Hvp, state, direction);
    const int n_in = t.kernel->n_inputs(), k = t.elements.k;
    for (int64_t e = 0; e < t.elements.size(); ++e) {
      for (size_t s = 0; s < t.input_vertex.size(); ++s) {
        double* row =
            hv.data() + static_cast<int64_t>(t.elements.conn[e * k + t.input_vertex[s]]) * block_;
        for (int c = 0; c < block_; ++c) row[c] += l.second[e * n_in + s * block_ + c];
      }
    }
  }
  return hv;
}

std::vector<double> Problem::element_jacobians(size_t term, std::span<const double> state,
                                               BlockOrder order) {
  check_state(state, "state");
  const Term& t = terms_.at(term);
  const Local l = run(term, Mode::Jacobian, state);
  if (order == BlockOrder::CellMajor) return l.first;
  const int64_t ne = t.elements.size();
  const size_t fs = static_cast<size_t>(t.kernel->n_outputs()) * t.kernel->n_inputs();
  std::vector<double> out(l.first.size());
  for (int64_t e = 0; e < ne; ++e) {
    for (size_t i = 0; i < fs; ++i) out[i * ne + e] = l.first[e * fs + i];
  }
  return out;
}

}  // namespace dualjit::assembly
