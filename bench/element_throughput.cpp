// Per-element Roe flux Jacobians on the GPU (no global assembly yet): every element gathers
// QL, QR through the connectivity, reads its area vector and writes F (5) and dF/d(QL,QR)
// (5 x 10). Times each width and layout with CUDA events (warm-up, median of repeats) against
// the byte floor: each input read once, each output written once, over the device-to-device
// copy bandwidth measured in the same run.
// Usage: element_throughput [edges]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "backends/cuda/cuda_kernel.h"
#include "backends/tuning/timing.h"
#include "examples/cfd/roe_flux.h"
#include "jit/element_driver.h"

using namespace dualjit;

namespace {

// CUDA events: 3 warm-ups, then the median of 21 runs.
double median_ms(const std::function<void()>& run) {
  return tuning::median_gpu_ms(run, 3, 21);
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n_edges = argc > 1 ? std::atoll(argv[1]) : 6'000'000;
  const int64_t n_nodes = n_edges / 6;
  if (!cuda::driver_available()) {
    std::printf("no GPU: %s\n", cuda::driver_unavailable_reason().c_str());
    return 1;
  }
  const auto& dev = cuda::Context::primary().device();
  std::mt19937_64 rng(1);
  // A mesh-like edge list: each node linked to nearby nodes (natural ordering locality).
  std::vector<int32_t> conn(2 * n_edges);
  std::uniform_int_distribution<int> near(1, 60);
  for (int64_t e = 0; e < n_edges; ++e) {
    const int64_t a = e / 6;
    conn[2 * e] = static_cast<int32_t>(a);
    conn[2 * e + 1] = static_cast<int32_t>((a + near(rng)) % n_nodes);
  }
  std::uniform_real_distribution<double> d(-0.3, 0.3);
  std::vector<double> q(n_nodes * 5), s(n_edges * 3);
  for (int64_t i = 0; i < n_nodes; ++i) {
    q[i * 5] = 1.0 + d(rng);
    q[i * 5 + 1] = 0.2 + 0.3 * d(rng);
    q[i * 5 + 2] = 0.2 + 0.3 * d(rng);
    q[i * 5 + 3] = 0.2 + 0.3 * d(rng);
    q[i * 5 + 4] = 2.5 + d(rng);
  }
  for (double& x : s) x = d(rng);
  auto dconn = cuda::DeviceBuffer::from(conn);
  auto dq = cuda::DeviceBuffer::from(q);
  auto ds = cuda::DeviceBuffer::from(s);
  cuda::DeviceBuffer values(n_edges * 5 * 8), first(n_edges * 50 * 8);

  // Copy bandwidth: read + write bytes of a large device-to-device copy.
  const size_t copy_bytes = first.bytes() / 2;
  cuda::DeviceBuffer src(copy_bytes), dst(copy_bytes);
  src.fill_bytes(1);
  const double copy_ms = median_ms([&] { dst.copy_from(src, copy_bytes); });
  const double bw = 2.0 * copy_bytes / (copy_ms * 1e-3);
  // Floor: Q read once per node, conn and S per edge, F and the 5x10 block written once.
  const double bytes = n_nodes * 5 * 8.0 + n_edges * (2 * 4 + 3 * 8 + 55 * 8.0);
  std::printf("device %s (%s), %lld edges, %lld nodes\n", dev.name.c_str(), dev.arch().c_str(),
              (long long)n_edges, (long long)n_nodes);
  std::printf("copy bandwidth %.0f GB/s; byte floor %.3f ms (%.2f GB)\n", bw / 1e9,
              bytes / bw * 1e3, bytes / 1e9);
  std::printf("%-34s %8s %8s %7s %5s %6s %6s\n", "kernel", "ms", "GB/s", "floor", "regs", "spill",
              "flops");
  const Kernel roe = cfd::roe_flux_kernel();
  struct Config {
    int w, t, b;
  };
  for (Config c : {Config{1, 1, 128}, Config{1, 2, 64}, Config{2, 1, 128}, Config{3, 1, 128},
                   Config{5, 1, 128}, Config{5, 2, 64}, Config{10, 1, 128}, Config{10, 1, 64},
                   Config{10, 2, 64}}) {
    jit::LoweringOptions o;
    o.mode = Mode::Jacobian;
    o.width = c.w;
    o.layout = {c.t, c.b};
    const cuda::CudaKernel k(jit::lower(roe, o));
    jit::ElementLaunch a;
    a.n_elements = n_edges;
    a.conn = reinterpret_cast<const int32_t*>(dconn.get());
    a.vertices_per_element = 2;
    a.fields = {reinterpret_cast<const double*>(dq.get()),
                reinterpret_cast<const double*>(dq.get())};
    a.params = reinterpret_cast<const double*>(ds.get());
    a.uniforms = {1.4};
    a.values = reinterpret_cast<double*>(values.get());
    a.first = reinterpret_cast<double*>(first.get());
    const double ms = median_ms([&] { k.launch(a.args()); });
    cuda::check_last(k.lowered().symbol.c_str());
    std::printf("%-34s %8.3f %8.0f %6.2fx %5d %6d %6d\n", k.lowered().symbol.c_str(), ms,
                bytes / (ms * 1e-3) / 1e9, ms / (bytes / bw * 1e3), k.attributes().registers,
                k.image().ptxas.spill_store_bytes, k.lowered().ops.flops());
  }
  return 0;
}
