// Random element problems for backend tests: node fields, connectivity with distinct
// vertices per element, params and uniforms, and the reference result computed by
// gathering the same data and running the reference evaluator.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>

#include "dsl/reference_evaluator.h"
#include "jit/element_driver.h"
#include "support/test_kernels.h"

namespace dualjit::test {

struct ElementProblem {
  int64_t n_nodes = 0, n_elements = 0;
  int k = 0;  // vertices per element
  std::vector<int32_t> conn;
  std::vector<std::vector<double>> fields;      // per input slot, n_nodes x slot size
  std::vector<std::vector<double>> directions;  // per input slot (HVP)
  std::vector<double> params;
  std::vector<double> uniforms;
  ElementBatch batch;  // the same data gathered per element, for the reference
};

inline ElementProblem make_problem(const Kernel& kernel, const jit::LoweredKernel& lowered,
                                   int64_t n_elements, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const KernelData data = data_for(kernel.name());
  ElementProblem pr;
  pr.n_elements = n_elements;
  pr.k = 1 + *std::max_element(lowered.input_vertex.begin(), lowered.input_vertex.end());
  pr.n_nodes = std::max<int64_t>(pr.k, n_elements / 2 + 3);
  std::uniform_int_distribution<int32_t> node(0, static_cast<int32_t>(pr.n_nodes - 1));
  for (int64_t e = 0; e < n_elements; ++e) {
    std::vector<int32_t> v;
    while (static_cast<int>(v.size()) < pr.k) {
      const int32_t c = node(rng);
      if (std::find(v.begin(), v.end(), c) == v.end()) v.push_back(c);
    }
    pr.conn.insert(pr.conn.end(), v.begin(), v.end());
  }
  const auto slots = kernel.slots_of(SlotKind::Input);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (const Slot& s : slots) {
    std::vector<double> f(pr.n_nodes * s.size), d(pr.n_nodes * s.size);
    for (int64_t i = 0; i < pr.n_nodes; ++i) {
      for (int c = 0; c < s.size; ++c) {
        f[i * s.size + c] = data.input(s.offset + c, rng);
        d[i * s.size + c] = unit(rng);
      }
    }
    pr.fields.push_back(std::move(f));
    pr.directions.push_back(std::move(d));
  }
  for (int64_t e = 0; e < n_elements; ++e) {
    for (int i = 0; i < kernel.n_params(); ++i) pr.params.push_back(data.param(i, rng));
  }
  pr.uniforms = data.uniforms;
  pr.uniforms.resize(kernel.n_uniforms(), 0.9);

  pr.batch.n_elements = n_elements;
  pr.batch.params = pr.params;
  pr.batch.uniforms = pr.uniforms;
  for (int64_t e = 0; e < n_elements; ++e) {
    for (size_t s = 0; s < slots.size(); ++s) {
      const int32_t v = pr.conn[e * pr.k + lowered.input_vertex[s]];
      for (int c = 0; c < slots[s].size; ++c) {
        pr.batch.inputs.push_back(pr.fields[s][v * slots[s].size + c]);
        pr.batch.directions.push_back(pr.directions[s][v * slots[s].size + c]);
      }
    }
  }
  return pr;
}

struct HostOutputs {
  std::vector<double> values, first, second;
  std::vector<double> tape;  // kernels that keep tapes (jit/tape_pattern.h)
};

// Outputs poisoned with NaN, so that an unwritten entry can never pass.
inline jit::ElementLaunch host_args(const ElementProblem& pr, const jit::LoweredKernel& l,
                                    HostOutputs& out) {
  const double nan = std::nan("");
  out.values.assign(
      (l.options.tiled_values ? jit::stored_elements(jit::FirstStores::Tiled, pr.n_elements)
                              : pr.n_elements) *
          l.plan.n_outputs,
      nan);
  out.first.assign(jit::stored_elements(l.options.first_stores, pr.n_elements) * l.first_size, nan);
  out.second.assign(pr.n_elements * l.second_size, nan);
  jit::ElementLaunch a;
  a.n_elements = pr.n_elements;
  a.conn = pr.conn.data();
  a.vertices_per_element = pr.k;
  for (const auto& f : pr.fields) a.fields.push_back(f.data());
  for (const auto& d : pr.directions) a.directions.push_back(d.data());
  a.params = pr.params.empty() ? nullptr : pr.params.data();
  a.uniforms = pr.uniforms;
  a.values = out.values.data();
  a.first = out.first.empty() ? nullptr : out.first.data();
  a.second = out.second.empty() ? nullptr : out.second.data();
  out.tape.assign(jit::tape_doubles(l.tape_size, pr.n_elements), nan);
  a.tape = out.tape.empty() ? nullptr : out.tape.data();
  return a;
}

// Largest |a - b| / max(1, |b|) over two arrays; NaN anywhere gives infinity.
inline double max_rel_err(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i]) || !std::isfinite(b[i])) return INFINITY;
    worst = std::max(worst, std::abs(a[i] - b[i]) / std::max(1.0, std::abs(b[i])));
  }
  return worst;
}

}  // namespace dualjit::test
