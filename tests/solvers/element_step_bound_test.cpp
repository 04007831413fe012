// ElementStepBound (solvers/element_step_bound.h) with a bound of its own: each node of an edge
// must stay above its floor (constant node data), so the bound is the smallest (floor - x) / dx
// over the nodes moving down. On host vectors against a loop over the nodes; on the GPU equal to
// the host's bit for bit; the first element that admits no step named on both; bad structure,
// functions and vectors refused with the function named.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "solvers/device_vector_space.h"
#include "solvers/element_step_bound.h"
#include "solvers/solver_error.h"
#include "support/gpu.h"
#include "support/nvrtc_module.h"
#include "tests/solvers/floor_bound.nvrtc.h"

using namespace dualjit;
using namespace dualjit::solvers;

namespace dualjit::embedded {
extern const char floor_bound_text[];  // tests/solvers/floor_bound.nvrtc.h (CMakeLists.txt)
}

namespace {

StepBoundFunction floor_function() {
  StepBoundFunction f;
  f.name = "floor";
  f.symbol = "floor_test::floor_bound";
  f.source = embedded::floor_bound_text;
  f.host = &floor_test::floor_bound;
  f.nodes = 2;
  f.width = 1;
  f.data_width = 1;
  return f;
}

struct Case {
  std::vector<int32_t> edges;  // a path over shuffled nodes, each node in some edge
  std::vector<double> floor, x;
};

Case random_case(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<int32_t> order(n);
  for (int64_t i = 0; i < n; ++i) order[i] = int32_t(i);
  std::shuffle(order.begin(), order.end(), rng);
  Case c;
  for (int64_t i = 0; i + 1 < n; ++i) c.edges.insert(c.edges.end(), {order[i], order[i + 1]});
  c.floor.resize(n);
  c.x.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    c.floor[i] = u(rng) - 0.5;
    c.x[i] = c.floor[i] + 0.01 + u(rng);
  }
  return c;
}

std::vector<double> random_direction(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::vector<double> d(n);
  for (double& v : d) v = g(rng);
  return d;
}

}  // namespace

TEST_CASE("element step bound on host vectors: the smallest node bound; the first blocked edge") {
  const VectorSpace& h = host_space();
  for (int64_t n : {2, 3, 1000, 70001}) {  // 70,001 nodes: several host threads
    CAPTURE(n);
    const Case c = random_case(n, 5 + n);
    const ElementStepBound bound(h, floor_function(), n, c.edges, c.floor);
    CHECK(bound.n_elements() == n - 1);
    const std::vector<double> d = random_direction(n, 9 + n);
    double expected = std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < n; ++i)
      if (d[i] < 0) expected = std::min(expected, (c.floor[i] - c.x[i]) / d[i]);
    CHECK(bound(h.from_host(c.x), h.from_host(d)) == expected);
    // Nothing moving down: unbounded.
    std::vector<double> up(d);
    for (double& v : up) v = std::abs(v);
    CHECK(bound(h.from_host(c.x), h.from_host(up)) == std::numeric_limits<double>::infinity());
    // A node at its floor blocks both its edges: the first one is named.
    std::vector<double> at = c.x;
    const int32_t node = c.edges[2 * ((n - 1) / 2) + 1];
    at[node] = c.floor[node];
    int64_t first = -1;
    for (int64_t e = 0; e < n - 1 && first < 0; ++e)
      if (c.edges[2 * e] == node || c.edges[2 * e + 1] == node) first = e;
    CHECK_THROWS_WITH_AS(
        bound(h.from_host(at), h.from_host(d)),
        doctest::Contains(
            ("step bound 'floor': element " + std::to_string(first) + " admits no step").c_str()),
        SolverError);
  }
  // No elements: unbounded.
  const ElementStepBound none(h, floor_function(), 2, {}, std::vector<double>{0.0, 0.0});
  CHECK(none(h.from_host(std::vector<double>{1, 1}), h.from_host(std::vector<double>{-1, -1})) ==
        std::numeric_limits<double>::infinity());
}

TEST_CASE("element step bound: bad structure, functions and vectors are named") {
  const VectorSpace& h = host_space();
  const std::vector<double> floor(4, 0.0);
  CHECK_THROWS_WITH_AS(
      ElementStepBound(h, floor_function(), 4, std::vector<int32_t>{0, 1, 2}, floor),
      doctest::Contains("step bound 'floor': 3 element indices"), SolverError);
  CHECK_THROWS_WITH_AS(
      ElementStepBound(h, floor_function(), 4, std::vector<int32_t>{0, 1, 2, 4}, floor),
      doctest::Contains("element 1 has node 4, outside [0, 4)"), SolverError);
  CHECK_THROWS_WITH_AS(
      ElementStepBound(h, floor_function(), 4, std::vector<int32_t>{0, 1}, std::vector<double>(3)),
      doctest::Contains("3 data values for 4 nodes"), SolverError);
  StepBoundFunction no_host = floor_function();
  no_host.host = nullptr;
  CHECK_THROWS_WITH_AS(ElementStepBound(h, no_host, 4, std::vector<int32_t>{0, 1}, floor),
                       doctest::Contains("incomplete function"), SolverError);
  const ElementStepBound bound(h, floor_function(), 4, std::vector<int32_t>{0, 1, 2, 3}, floor);
  CHECK_THROWS_WITH_AS(bound(h.zeros(3), h.zeros(4)), doctest::Contains("x of 3 and dx of 4"),
                       SolverError);
}

TEST_CASE("element step bound: the kernel compiles under NVRTC for sm_90 without a GPU") {
  test::check_module_compiles("floor", element_step_bound_source(floor_function()),
                              {kElementStepBoundEntry}, element_step_bound_options());
}

TEST_SUITE("gpu") {
  TEST_CASE("element step bound on device vectors equals the host's" * test::needs_gpu()) {
    const DeviceSpace gpu;
    const VectorSpace& cpu = host_space();
    for (int64_t n : {2, 257, 300001}) {
      CAPTURE(n);
      const Case c = random_case(n, 17 + n);
      const ElementStepBound on_gpu(gpu, floor_function(), n, c.edges, c.floor);
      const ElementStepBound on_cpu(cpu, floor_function(), n, c.edges, c.floor);
      const std::vector<double> d = random_direction(n, 3 + n);
      const double host = on_cpu(cpu.from_host(c.x), cpu.from_host(d));
      CHECK(on_gpu(gpu.from_host(c.x), gpu.from_host(d)) == host);
      CHECK(on_gpu(gpu.from_host(c.x), gpu.from_host(d)) == host);  // the read-back was reset
      std::vector<double> at = c.x;
      at[c.edges[1]] = c.floor[c.edges[1]] - 1;  // blocks edge 0 (and maybe its neighbour)
      CHECK_THROWS_WITH_AS(on_gpu(gpu.from_host(at), gpu.from_host(d)),
                           doctest::Contains("element 0 admits no step"), SolverError);
      CHECK(on_gpu(gpu.from_host(c.x), gpu.from_host(d)) == host);
      CHECK_THROWS_WITH_AS(on_gpu(cpu.from_host(c.x), cpu.from_host(d)),
                           doctest::Contains("expected in device memory"), SolverError);
    }
  }
}
