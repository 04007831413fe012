#include "dsl/reference_evaluator.h"

#include <algorithm>
#include <complex>
#include <string>

namespace dualjit {
namespace {

std::string slot_list(const Kernel& kernel, SlotKind kind) {
  std::string s;
  for (const Slot& slot : kernel.slots_of(kind)) {
    if (!s.empty()) s += ", ";
    s += slot.name + "[" + std::to_string(slot.size) + "]";
  }
  return s.empty() ? "none" : s;
}

void check_size(const Kernel& kernel, SlotKind kind, size_t got, int expected) {
  if (got != static_cast<size_t>(expected)) {
    throw DslError("kernel '" + kernel.name() + "': expected " + std::to_string(expected) + " " +
                   std::string(slot_kind_name(kind)) + " components (" + slot_list(kernel, kind) +
                   "), got " + std::to_string(got));
  }
}

void require_scalar(const Kernel& kernel, Mode mode) {
  if (!kernel.scalar_output()) {
    throw DslError("kernel '" + kernel.name() + "': mode '" + std::string(mode_name(mode)) +
                   "' needs a scalar output, the kernel has " + std::to_string(kernel.n_outputs()));
  }
}

using D1 = Dual<double>;
using D2 = Dual<D1>;

}  // namespace

void check_element_args(const Kernel& kernel, const ElementArgs& args) {
  check_size(kernel, SlotKind::Input, args.inputs.size(), kernel.n_inputs());
  check_size(kernel, SlotKind::Param, args.params.size(), kernel.n_params());
  check_size(kernel, SlotKind::Uniform, args.uniforms.size(), kernel.n_uniforms());
}

template <class T>
std::vector<T> evaluate_graph(const Kernel& kernel, std::span<const T> inputs,
                              std::span<const double> params, std::span<const double> uniforms) {
  const Graph& g = kernel.graph();
  std::vector<T> val(g.size());
  const T none{};
  auto arg = [&](NodeId id) -> const T& { return id == kNoNode ? none : val[id]; };
  for (size_t i = 0; i < g.size(); ++i) {
    const Node& n = g.node(static_cast<NodeId>(i));
    switch (n.op) {
      case Op::Const:
        val[i] = T(n.value);
        break;
      case Op::Input:
        val[i] = inputs[kernel.flat_index(n)];
        break;
      case Op::Param:
        val[i] = T(params[kernel.flat_index(n)]);
        break;
      case Op::Uniform:
        val[i] = T(uniforms[kernel.flat_index(n)]);
        break;
      default:
        val[i] = value_op<T>(n.op, arg(n.a), arg(n.b), arg(n.c));
    }
  }
  std::vector<T> out;
  out.reserve(kernel.outputs().size());
  for (NodeId id : kernel.outputs()) out.push_back(val[id]);
  return out;
}

template std::vector<double> evaluate_graph<double>(const Kernel&, std::span<const double>,
                                                    std::span<const double>,
                                                    std::span<const double>);
template std::vector<std::complex<double>> evaluate_graph<std::complex<double>>(
    const Kernel&, std::span<const std::complex<double>>, std::span<const double>,
    std::span<const double>);
template std::vector<D1> evaluate_graph<D1>(const Kernel&, std::span<const D1>,
                                            std::span<const double>, std::span<const double>);
template std::vector<Dual<std::complex<double>>> evaluate_graph<Dual<std::complex<double>>>(
    const Kernel&, std::span<const Dual<std::complex<double>>>, std::span<const double>,
    std::span<const double>);
template std::vector<D2> evaluate_graph<D2>(const Kernel&, std::span<const D2>,
                                            std::span<const double>, std::span<const double>);

std::vector<double> evaluate_values(const Kernel& kernel, const ElementArgs& args) {
  check_element_args(kernel, args);
  return evaluate_graph<double>(kernel, args.inputs, args.params, args.uniforms);
}

JacobianResult evaluate_jacobian(const Kernel& kernel, const ElementArgs& args, int width) {
  check_element_args(kernel, args);
  const int n = kernel.n_inputs(), m = kernel.n_outputs();
  if (width <= 0) width = n;
  JacobianResult r;
  r.jacobian.assign(static_cast<size_t>(m) * n, 0.0);
  for (int first = 0; first < n; first += width) {
    const int last = std::min(n, first + width);
    std::vector<D1> x(n);
    for (int i = 0; i < n; ++i) {
      x[i].v = args.inputs[i];
      if (i >= first && i < last) x[i].t = {{i - first, 1.0}};  // direction local to the chunk
    }
    const auto out = evaluate_graph<D1>(kernel, x, args.params, args.uniforms);
    if (first == 0) {
      for (const D1& o : out) r.values.push_back(o.v);
    }
    for (int k = 0; k < m; ++k) {
      for (const auto& [d, v] : out[k].t) r.jacobian[static_cast<size_t>(k) * n + first + d] = v;
    }
  }
  if (n == 0) r.values = evaluate_values(kernel, args);
  return r;
}

HessianResult evaluate_hessian(const Kernel& kernel, const ElementArgs& args) {
  check_element_args(kernel, args);
  require_scalar(kernel, Mode::Hessian);
  const int n = kernel.n_inputs();
  std::vector<D2> x(n);
  for (int i = 0; i < n; ++i) {
    x[i].v = D1(args.inputs[i], {{i, 1.0}});  // inner: gradient directions
    x[i].t = {{i, D1(1.0)}};                  // outer: Hessian rows
  }
  const D2 out = evaluate_graph<D2>(kernel, x, args.params, args.uniforms)[0];
  HessianResult r;
  r.value = out.v.v;
  r.gradient.assign(n, 0.0);
  r.hessian.assign(static_cast<size_t>(n) * n, 0.0);
  for (const auto& [j, g] : out.v.t) r.gradient[j] = g;
  for (const auto& [i, row] : out.t) {
    for (const auto& [j, h] : row.t) r.hessian[static_cast<size_t>(i) * n + j] = h;
  }
  return r;
}

HvpResult evaluate_hvp(const Kernel& kernel, const ElementArgs& args,
                       std::span<const double> direction) {
  check_element_args(kernel, args);
  require_scalar(kernel, Mode::Hvp);
  const int n = kernel.n_inputs();
  if (direction.size() != static_cast<size_t>(n)) {
    throw DslError("kernel '" + kernel.name() + "': HVP direction has " +
                   std::to_string(direction.size()) + " components, expected " + std::to_string(n));
  }
  std::vector<D2> x(n);
  for (int i = 0; i < n; ++i) {
    x[i].v = D1(args.inputs[i], {{i, 1.0}});
    x[i].t = {{0, D1(direction[i])}};  // one outer direction: v
  }
  const D2 out = evaluate_graph<D2>(kernel, x, args.params, args.uniforms)[0];
  HvpResult r;
  r.value = out.v.v;
  r.gradient.assign(n, 0.0);
  r.hvp.assign(n, 0.0);
  for (const auto& [j, g] : out.v.t) r.gradient[j] = g;
  for (const auto& [k, dv] : out.t) {
    for (const auto& [j, h] : dv.t) r.hvp[j] = h;
  }
  return r;
}

BatchResult evaluate_batch(const Kernel& kernel, Mode mode, const ElementBatch& batch, int width) {
  const int n = kernel.n_inputs(), m = kernel.n_outputs(), np = kernel.n_params();
  const int64_t ne = batch.n_elements;
  check_size(kernel, SlotKind::Input, batch.inputs.size(), static_cast<int>(ne * n));
  check_size(kernel, SlotKind::Param, batch.params.size(), static_cast<int>(ne * np));
  if (mode_needs_scalar_output(mode)) require_scalar(kernel, mode);
  const size_t fs = first_size(mode, n, m), ss = second_size(mode, n);
  BatchResult r;
  r.values.resize(static_cast<size_t>(ne) * m);
  r.first.resize(static_cast<size_t>(ne) * fs);
  r.second.resize(static_cast<size_t>(ne) * ss);
  for (int64_t e = 0; e < ne; ++e) {
    ElementArgs a{std::span<const double>(batch.inputs).subspan(e * n, n),
                  std::span<const double>(batch.params).subspan(e * np, np), batch.uniforms};
    double* val = r.values.data() + e * m;
    double* first = r.first.data() + e * fs;
    double* second = r.second.data() + e * ss;
    switch (mode) {
      case Mode::Value: {
        const auto v = evaluate_values(kernel, a);
        std::copy(v.begin(), v.end(), val);
        break;
      }
      case Mode::Jacobian:
      case Mode::Gradient: {
        const auto j = evaluate_jacobian(kernel, a, width);
        std::copy(j.values.begin(), j.values.end(), val);
        std::copy(j.jacobian.begin(), j.jacobian.end(), first);
        break;
      }
      case Mode::Hessian: {
        const auto h = evaluate_hessian(kernel, a);
        val[0] = h.value;
        std::copy(h.gradient.begin(), h.gradient.end(), first);
        for (int i = 0; i < n; ++i) {
          for (int j = i; j < n; ++j) {
            second[packed_upper_index(n, i, j)] = h.hessian[static_cast<size_t>(i) * n + j];
          }
        }
        break;
      }
      case Mode::Hvp: {
        if (batch.directions.size() != static_cast<size_t>(ne * n)) {
          throw DslError("kernel '" + kernel.name() + "': HVP batch needs " +
                         std::to_string(ne * n) + " direction components, got " +
                         std::to_string(batch.directions.size()));
        }
        const auto h =
            evaluate_hvp(kernel, a, std::span<const double>(batch.directions).subspan(e * n, n));
        val[0] = h.value;
        std::copy(h.gradient.begin(), h.gradient.end(), first);
        std::copy(h.hvp.begin(), h.hvp.end(), second);
        break;
      }
    }
  }
  return r;
}

}  // namespace dualjit
