// GPU assembly of a mass-spring energy (assembly::Assembler): energy, gradient, Hessian (general
// and upper block CSR) and Hessian-vector product on an n^3 grid spring network (axis springs plus
// a per-vertex inertia term; n = 100 gives 1 M vertices, 2.97 M springs), timed with CUDA events
// after warm-up, medians of repeated runs, for each element strategy (element-gather,
// element-scatter, node-gather) and for AssemblerOptions' defaults in the same run. Checks that the
// gathers' repeated runs are bit-identical and that all agree to round-off; exits 1 otherwise.
//
//   device_problem_bench [--grid N] [--reps R] [--width W]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

#include "backends/assembly/assembler.h"
#include "backends/tuning/timing.h"
#include "bench/wall_clock.h"
#include "examples/mesh_energy/spring_grid.h"

using namespace dualjit;
using bench::seconds_since;

namespace {

// Median milliseconds of `run` on the null stream (CUDA events), after 3 untimed runs.
double time_ms(const std::function<void()>& run, int reps) {
  return tuning::median_gpu_ms(run, 3, reps);
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 100, reps = 20, width = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--grid" && i + 1 < argc) {
      n = std::stoi(argv[++i]);
    } else if (a == "--reps" && i + 1 < argc) {
      reps = std::stoi(argv[++i]);
    } else if (a == "--width" && i + 1 < argc) {
      width = std::stoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: device_problem_bench [--grid N] [--reps R] [--width W]\n");
      return 2;
    }
  }
  if (!cuda::driver_available()) {
    std::printf("device_problem_bench: no GPU (%s); nothing to time\n",
                cuda::driver_unavailable_reason().c_str());
    return 0;
  }
  const auto t_setup = std::chrono::steady_clock::now();
  mesh_energy::SpringGrid grid = mesh_energy::spring_grid(n);
  assembly::Problem& problem = grid.problem;
  const std::vector<double>&x = grid.x, &v = grid.v;
  const int64_t nv = problem.n_nodes(), n_springs = problem.term(0).elements.size();
  const auto& dev = cuda::Context::primary().device();
  std::printf("device: %s (%s)\n", dev.name.c_str(), dev.arch().c_str());
  std::printf(
      "grid %d^3: %lld vertices, %lld springs; Hessian %lld blocks (general), %lld "
      "(upper) of 3x3\n",
      n, static_cast<long long>(nv), static_cast<long long>(n_springs),
      static_cast<long long>(problem.pattern().n_blocks()),
      static_cast<long long>(problem.pattern(mesh::Symmetry::Upper).n_blocks()));
  std::printf("setup %.2f s (host problem and patterns)\n", seconds_since(t_setup));

  // Each element strategy on the same problem and state, one after the other: the same
  // outputs, then their times (median of `reps` runs after warm-up, CUDA events).
  struct Outputs {
    std::vector<double> g, hv, h, hu;
    double e = 0;
  };
  const auto outputs = [&](assembly::Assembler& d) {
    Outputs o;
    o.e = d.energy(x);
    o.g = d.gradient(x);
    o.hv = d.hvp(x, v);
    o.h = d.hessian(x).values;
    o.hu = d.hessian(x, mesh::Symmetry::Upper).values;
    return o;
  };
  const auto max_rel = [](const std::vector<double>& a, const std::vector<double>& b) {
    double w = 0, scale = 1;
    for (double y : b) scale = std::max(scale, std::abs(y));
    for (size_t i = 0; i < a.size(); ++i) w = std::max(w, std::abs(a[i] - b[i]) / scale);
    return a.size() == b.size() ? w : INFINITY;
  };
  bool ok = true;
  Outputs reference;
  std::printf("%-19s %9s %9s %9s %9s %9s %9s %7s  %s\n", "strategy", "energy", "gradient", "HVP",
              "H(gen)", "H(upper)", "grad+H", "first", "outputs");
  // Each strategy for vectors and matrices alike, then AssemblerOptions' defaults.
  using S = assembly::ElementStrategy;
  struct Config {
    std::string name;
    S vectors, matrices;
  };
  const assembly::AssemblerOptions defaults;
  const std::vector<Config> configs = {
      {"element-gather", S::Gather, S::Gather},
      {"element-scatter", S::Scatter, S::Scatter},
      {"node-gather", S::NodeGather, S::NodeGather},
      {"staged-node-gather", S::NodeGather, S::StagedNodeGather},
      {"defaults", defaults.vector_strategy, defaults.matrix_strategy}};
  for (const Config& c : configs) {
    assembly::AssemblerOptions options;
    options.backend = assembly::Backend::Cuda;
    options.element_width = width;
    options.vector_strategy = c.vectors;
    options.matrix_strategy = c.matrices;
    assembly::Assembler d(problem, options);
    d.set_state(x);
    d.set_direction(v);
    // First runs: compile or load every element kernel, upload the patterns.
    const auto t_first = std::chrono::steady_clock::now();
    d.run_energy();
    d.run_gradient();
    d.run_hvp();
    d.run_hessian(mesh::Symmetry::General);
    d.run_hessian(mesh::Symmetry::Upper);
    cuda::check_last("first runs");
    const double first_s = seconds_since(t_first);
    const double e_ms = time_ms([&] { d.run_energy(); }, reps);
    const double g_ms = time_ms([&] { d.run_gradient(); }, reps);
    const double hv_ms = time_ms([&] { d.run_hvp(); }, reps);
    const double h_ms = time_ms([&] { d.run_hessian(mesh::Symmetry::General); }, reps);
    const double hu_ms = time_ms([&] { d.run_hessian(mesh::Symmetry::Upper); }, reps);
    const double gh_ms = time_ms(
        [&] {
          d.run_gradient();
          d.run_hessian(mesh::Symmetry::General);
        },
        reps);
    // The gathers: repeated runs give the same bits. All: equal to element-gather to round-off.
    const Outputs o1 = outputs(d), o2 = outputs(d);
    std::string check;
    if (c.vectors == S::Gather && c.matrices == S::Gather) reference = o1;
    const double err = std::max({max_rel(o1.g, reference.g), max_rel(o1.hv, reference.hv),
                                 max_rel(o1.h, reference.h), max_rel(o1.hu, reference.hu)});
    char buf[64];
    std::snprintf(buf, sizeof buf, "max rel. diff. to element-gather %.1e", err);
    check = buf;
    ok = ok && err < 1e-12;
    if (c.vectors != S::Scatter && c.matrices != S::Scatter) {
      const bool same = same_bits(o1.g, o2.g) && same_bits(o1.h, o2.h) && same_bits(o1.hv, o2.hv) &&
                        same_bits(o1.hu, o2.hu) && o1.e == o2.e;
      check += same ? ", bit-identical repeats" : ", REPEATS DIFFER";
      ok = ok && same;
    }
    std::printf("%-19s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %6.2fs  %s\n", c.name.c_str(), e_ms,
                g_ms, hv_ms, h_ms, hu_ms, gh_ms, first_s, check.c_str());
  }
  std::printf("times in ms; energy %.17g\n", reference.e);
  return ok ? 0 : 1;
}
