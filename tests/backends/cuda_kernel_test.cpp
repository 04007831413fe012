// The CUDA backend against the reference evaluator (skipped cleanly without a GPU).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <utility>

#include "backends/cpu/cpu_kernel.h"
#include "backends/cuda/cuda_kernel.h"
#include "backends/cuda/driver.h"
#include "jit/driver_text.h"
#include "jit/nvrtc_compiler.h"
#include "support/element_problem.h"
#include "support/gpu.h"
#include "support/random_kernel.h"

using namespace dualjit;

namespace {

struct DeviceElementAssembly {
  cuda::DeviceBuffer conn, params, values, first, second, tape;
  std::vector<cuda::DeviceBuffer> fields, directions;
};

// Runs the launches of one kernel on the GPU, in order, and returns host copies of the outputs
// (poisoned with NaN bytes first, the tape too).
test::HostOutputs run_on_gpu(const std::vector<const cuda::CudaKernel*>& launches,
                             const test::ElementProblem& pr) {
  const auto& l = launches.front()->lowered();
  DeviceElementAssembly d;
  d.conn = cuda::DeviceBuffer::from(pr.conn);
  for (const auto& f : pr.fields) d.fields.push_back(cuda::DeviceBuffer::from(f));
  for (const auto& f : pr.directions) d.directions.push_back(cuda::DeviceBuffer::from(f));
  if (!pr.params.empty()) d.params = cuda::DeviceBuffer::from(pr.params);
  auto out_buffer = [&](size_t n) {
    cuda::DeviceBuffer b(std::max<size_t>(n, 1) * sizeof(double));
    b.fill_bytes(0xFF);  // NaN
    return b;
  };
  d.values = out_buffer(pr.n_elements * l.plan.n_outputs);
  d.first = out_buffer(pr.n_elements * l.first_size);
  d.second = out_buffer(pr.n_elements * l.second_size);
  if (l.tape_size > 0) d.tape = out_buffer(jit::tape_doubles(l.tape_size, pr.n_elements));
  jit::ElementLaunch a;
  a.n_elements = pr.n_elements;
  a.conn = reinterpret_cast<const int32_t*>(d.conn.get());
  a.vertices_per_element = pr.k;
  for (auto& f : d.fields) a.fields.push_back(reinterpret_cast<const double*>(f.get()));
  for (auto& f : d.directions) a.directions.push_back(reinterpret_cast<const double*>(f.get()));
  a.params = pr.params.empty() ? nullptr : reinterpret_cast<const double*>(d.params.get());
  a.uniforms = pr.uniforms;
  a.values = reinterpret_cast<double*>(d.values.get());
  a.first = reinterpret_cast<double*>(d.first.get());
  a.second = reinterpret_cast<double*>(d.second.get());
  if (l.tape_size > 0) a.tape = reinterpret_cast<double*>(d.tape.get());
  for (const cuda::CudaKernel* ck : launches) {
    ck->launch(a.args());
    cuda::check_last(ck->lowered().symbol.c_str());
  }
  test::HostOutputs out;
  out.values.resize(pr.n_elements * l.plan.n_outputs);
  out.first.resize(pr.n_elements * l.first_size);
  out.second.resize(pr.n_elements * l.second_size);
  d.values.download(out.values.data(), out.values.size() * sizeof(double));
  if (!out.first.empty()) d.first.download(out.first.data(), out.first.size() * sizeof(double));
  if (!out.second.empty()) {
    d.second.download(out.second.data(), out.second.size() * sizeof(double));
  }
  return out;
}

test::HostOutputs run_on_gpu(const cuda::CudaKernel& ck, const test::ElementProblem& pr) {
  return run_on_gpu(std::vector<const cuda::CudaKernel*>{&ck}, pr);
}

void check_gpu(const Kernel& k, Mode mode, int width, jit::LaunchLayout layout, bool prune = true,
               size_t max_statements = 0, int rows = 0) {
  jit::LoweringOptions o;
  o.mode = mode;
  o.width = width;
  o.rows = rows;
  o.layout = layout;
  o.prune = prune;
  o.max_statements_per_function = max_statements;
  const cuda::CudaKernel ck(jit::lower(k, o));
  const auto& l = ck.lowered();
  CAPTURE(l.symbol);
  const auto pr = test::make_problem(k, l, 1000, 7);
  const test::HostOutputs gpu = run_on_gpu(ck, pr);
  const BatchResult ref = evaluate_batch(k, mode, pr.batch, width);
  // The GPU may contract a*b+c into FMAs: agreement to round-off, not bit for bit.
  CHECK(test::max_rel_err(gpu.values, ref.values) < 1e-12);
  CHECK(test::max_rel_err(gpu.first, ref.first) < 1e-12);
  CHECK(test::max_rel_err(gpu.second, ref.second) < 1e-12);
  const auto attr = ck.attributes();
  MESSAGE(l.symbol << ": " << attr.registers << " registers, " << attr.local_bytes
                   << " B local, ptxas spills " << ck.image().ptxas.spill_store_bytes << " B");
}

// Every a[i] through two device expressions of `a`, ours (with the outlined specials of
// jit/driver_text.h in scope) and CUDA's: host copies of both.
std::pair<std::vector<double>, std::vector<double>> ours_and_cudas(const std::string& ours,
                                                                   const std::string& cudas,
                                                                   const std::vector<double>& a) {
  const std::string source =
      jit::cuda_prelude() + jit::cuda_outlined_specials() +
      "extern \"C\" __global__ void pair(long long n, const double* in, "
      "double* ours, double* cudas) {\n"
      "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i >= n) return;\n"
      "  const double a = in[i];\n"
      "  ours[i] = " +
      ours +
      ";\n"
      "  cudas[i] = " +
      cudas +
      ";\n"
      "}\n";
  jit::CompileOptions co;
  co.arch = cuda::Context::primary().device().arch();
  const jit::CompiledImage image = jit::nvrtc_compile("pair", source, co);
  const cuda::Module module(image.image, "pair");
  const long long n = static_cast<long long>(a.size());
  cuda::DeviceBuffer da = cuda::DeviceBuffer::from(a), o(n * sizeof(double)), c(n * sizeof(double));
  CUdeviceptr pa = da.get(), po = o.get(), pc = c.get();
  long long count = n;
  void* args[] = {&count, &pa, &po, &pc};
  cuda::launch(module.function("pair"), cuda::Dim3{static_cast<unsigned>((n + 127) / 128)},
               cuda::Dim3{128}, 0, args);
  cuda::check_last("pair");
  return {o.to_vector<double>(), c.to_vector<double>()};
}

}  // namespace

TEST_SUITE("gpu") {
  TEST_CASE("CUDA backend equals the reference: Roe flux, all widths and layouts" *
            test::needs_gpu()) {
    const Kernel roe = cfd::roe_flux_kernel();
    for (int w : {1, 2, 3, 5, 10}) {
      for (jit::LaunchLayout layout : {jit::LaunchLayout{1, 128}, jit::LaunchLayout{2, 64}}) {
        check_gpu(roe, Mode::Jacobian, w, layout);
      }
    }
    check_gpu(roe, Mode::Value, 0, {1, 128});
    check_gpu(roe, Mode::Jacobian, 5, {2, 32}, /*prune=*/false);
    check_gpu(roe, Mode::Jacobian, 2, {1, 128}, true, /*max_statements=*/100);
  }

  TEST_CASE("CUDA backend equals the reference: spring, Arrhenius, random graphs" *
            test::needs_gpu()) {
    const Kernel spring = test::spring_kernel(), rate = test::arrhenius_kernel();
    for (int w : {1, 3, 6}) check_gpu(spring, Mode::Hessian, w, {1, 64});
    check_gpu(spring, Mode::Hessian, 2, {3, 32});
    check_gpu(spring, Mode::Hvp, 2, {3, 32});
    check_gpu(spring, Mode::Gradient, 0, {1, 256});
    for (int w : {1, 2, 4}) check_gpu(rate, Mode::Jacobian, w, {1, 128});
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      test::RandomKernelOptions o;
      o.seed = 40 + seed;
      o.smooth_only = seed % 2 == 0;
      o.n_outputs = 1;
      const Kernel k = test::random_kernel(o, "random" + std::to_string(seed));
      check_gpu(k, Mode::Jacobian, 2, {2, 64});
      check_gpu(k, Mode::Hessian, 0, {1, 128});
    }
  }

  TEST_CASE("CUDA backend equals the reference with cuts (dsl/expr.h cut())" * test::needs_gpu()) {
    const Kernel rates = test::cut_kernel(true), energy = test::cut_kernel(true, true);
    for (int w : {1, 2, 0}) check_gpu(rates, Mode::Jacobian, w, {1, 128});
    check_gpu(rates, Mode::Jacobian, 2, {3, 32});  // chunks on threads of their own
    check_gpu(energy, Mode::Gradient, 0, {1, 128});
    check_gpu(energy, Mode::Hessian, 2, {1, 64});
  }

  TEST_CASE("CUDA backend equals the reference with tapes (dsl/expr.h tape())" *
            test::needs_gpu()) {
    // Whole (the tape chunk then the rows, on each element's thread), in row groups, staged,
    // and in launches that run in order, the tapes' first, the rows' chunks side by side (a
    // block each) or one after another: 1000 elements, a partial last tile.
    const Kernel k = test::tape_kernel(true);
    for (int w : {0, 2}) check_gpu(k, Mode::Jacobian, w, {1, 128});
    for (int rows : {1, 3}) {
      for (jit::FirstStores stores : {jit::FirstStores::Direct, jit::FirstStores::Staged,
                                      jit::FirstStores::StagedComponentMajor}) {
        for (bool side_by_side : {true, false}) {
          CAPTURE(rows);
          CAPTURE(static_cast<int>(stores));
          CAPTURE(side_by_side);
          jit::LoweringOptions o;
          o.mode = Mode::Jacobian;
          o.rows = rows;
          o.launches = 3;
          o.first_stores = stores;
          o.layout.side_by_side = side_by_side;
          std::vector<std::unique_ptr<cuda::CudaKernel>> parts;
          std::vector<const cuda::CudaKernel*> launches;
          for (jit::LoweredKernel& l : jit::lower_launches(k, o)) {
            parts.push_back(std::make_unique<cuda::CudaKernel>(std::move(l)));
            launches.push_back(parts.back().get());
          }
          REQUIRE(launches.size() == 3);
          REQUIRE(launches.front()->lowered().writes_tape);
          REQUIRE(launches.back()->lowered().launch.blocks_per_item_block ==
                  (side_by_side ? int(launches.back()->lowered().plan.chunks.size()) : 1));
          const auto pr = test::make_problem(k, launches.front()->lowered(), 1000, 17);
          const test::HostOutputs gpu = run_on_gpu(launches, pr);
          const BatchResult ref = evaluate_batch(k, Mode::Jacobian, pr.batch, 0);
          if (stores == jit::FirstStores::StagedComponentMajor) {
            // Entry i of element e at i * n + e: compared in the reference's element-major order.
            const int64_t n = pr.n_elements,
                          fs = static_cast<int64_t>(launches.front()->lowered().first_size);
            std::vector<double> rows_first(gpu.first.size());
            for (int64_t e = 0; e < n; ++e)
              for (int64_t i = 0; i < fs; ++i) rows_first[e * fs + i] = gpu.first[i * n + e];
            CHECK(test::max_rel_err(rows_first, ref.first) < 1e-12);
          } else {
            CHECK(test::max_rel_err(gpu.first, ref.first) < 1e-12);
          }
          CHECK(test::max_rel_err(gpu.values, ref.values) < 1e-12);
        }
      }
    }
  }

  TEST_CASE("CUDA backend equals the reference with constant tables (the tapes' chunk, large)" *
            test::needs_gpu()) {
    // The tapes' chunk reads its constants from constant memory and picks its selects' rows in
    // PTX (jit/constant_tables.h): in row groups, whole functions and in pieces.
    const Kernel k = test::large_tape_kernel();
    check_gpu(k, Mode::Jacobian, 0, {1, 128}, true, 0, 1);
    check_gpu(k, Mode::Jacobian, 0, {1, 128}, true, 1000, 2);
  }

  TEST_CASE("CUDA backend: staged first derivatives are the direct stores' blocks, either order" *
            test::needs_gpu()) {
    // 1000 elements: the last warp has 8, whose other lanes compute the last element again and
    // must write nothing; {2, 64}: an element's chunks on two warps, each with its own stage.
    const Kernel roe = cfd::roe_flux_kernel(), rates = test::cut_kernel(true);
    for (const Kernel* k : {&roe, &rates}) {
      for (int rows : {0, 1, 2}) {
        for (bool sparse : {false, true}) {
          for (jit::LaunchLayout layout : {jit::LaunchLayout{1, 128}, jit::LaunchLayout{2, 64}}) {
            jit::LoweringOptions o;
            o.mode = Mode::Jacobian;
            o.rows = rows;
            o.sparse_jacobian = sparse;
            o.layout = layout;
            const cuda::CudaKernel direct(jit::lower(*k, o));
            const auto pr = test::make_problem(*k, direct.lowered(), 1000, 13);
            const test::HostOutputs a = run_on_gpu(direct, pr);
            o.first_stores = jit::FirstStores::Staged;
            const cuda::CudaKernel staged(jit::lower(*k, o));
            CAPTURE(staged.lowered().symbol);
            REQUIRE(staged.lowered().options.first_stores == jit::FirstStores::Staged);
            const test::HostOutputs b = run_on_gpu(staged, pr);
            CHECK(test::max_rel_err(b.first, a.first) < 1e-13);
            CHECK(test::max_rel_err(b.values, a.values) < 1e-13);
            // Component-major: entry i of element e at i * n + e.
            o.first_stores = jit::FirstStores::StagedComponentMajor;
            const cuda::CudaKernel columns(jit::lower(*k, o));
            REQUIRE(columns.lowered().options.first_stores == o.first_stores);
            const test::HostOutputs c = run_on_gpu(columns, pr);
            const int64_t n = pr.n_elements, fs = static_cast<int64_t>(direct.lowered().first_size);
            std::vector<double> transposed(c.first.size());
            for (int64_t e = 0; e < n; ++e)
              for (int64_t i = 0; i < fs; ++i) transposed[e * fs + i] = c.first[i * n + e];
            CHECK(test::max_rel_err(transposed, a.first) < 1e-13);
          }
        }
      }
    }
  }

  TEST_CASE("CUDA backend: a chemistry-sized graph, split and fast-compiled, equals the reference" *
            test::needs_gpu()) {
    test::RandomKernelOptions ro;
    ro.n_inputs = 20;
    ro.n_nodes = 2000;
    ro.n_outputs = 20;
    ro.seed = 5;
    const Kernel big = test::random_kernel(ro, "big");
    check_gpu(big, Mode::Jacobian, 10, {1, 128});
  }

  TEST_CASE("CUDA backend: the outlined exp is within 1 ulp of CUDA's exp" * test::needs_gpu()) {
    // dj_exp (jit/driver_text.h) is Tang's table method, not libdevice's algorithm: over the
    // whole range it may differ from exp() in the last bit, and at the range's ends (where it
    // calls exp()) and on the special values it must equal it.
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> a = {0.0,     -0.0,    1.0,
                             -1.0,    706.99,  -706.99,
                             707.0,   -707.0,  708.39,
                             -708.39, 709.78,  709.79,
                             -745.0,  -745.1,  -745.2,
                             -744.4,  1e-300,  -1e-300,
                             5e-324,  1e300,   -1e300,
                             710.0,   -708.4,  -720.5,
                             -730.0,  88.7,    -88.7,
                             0.00271, 0.00272, -0.0027,
                             inf,     -inf,    std::numeric_limits<double>::quiet_NaN()};
    std::mt19937_64 rng(2026);
    std::uniform_real_distribution<double> wide(-707.0, 707.0), narrow(-40.0, 40.0),
        tiny(-1e-3, 1e-3);
    while (a.size() < (1u << 20)) {
      a.push_back(a.size() % 3 == 0 ? wide(rng) : a.size() % 3 == 1 ? narrow(rng) : tiny(rng));
    }
    const auto [o, c] = ours_and_cudas("dj_exp(a)", "exp(a)", a);
    size_t far = 0, differ = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      if (std::memcmp(&o[i], &c[i], sizeof(double)) == 0) continue;
      ++differ;
      // Within 1 ulp (the next double from CUDA's result towards ours is ours), and only where
      // the table serves: |a| < 707.
      const bool near = std::fabs(a[i]) < 707.0 && std::nextafter(c[i], o[i]) == o[i];
      if (!near && far++ < 5) MESSAGE("exp(" << a[i] << "): " << o[i] << " against " << c[i]);
    }
    MESSAGE(differ << " of " << a.size() << " differ from CUDA's exp in the last bit");
    CHECK(far == 0);
  }

  TEST_CASE("CUDA backend: the outlined reciprocal is within 1 ulp of CUDA's 1.0 / x" *
            test::needs_gpu()) {
    // dj_rcp (jit/driver_text.h) refines PTX's approximate reciprocal without CUDA's range test:
    // for normal x up to 2^1022 it may differ from 1.0 / x in the last bit; on zeros,
    // infinities and NaN it must equal it; beyond, it flushes: ±inf for a subnormal x, ±0 for
    // |x| > 2^1022 (or, just above 2^1022, ±2^-1022: 1 ulp from CUDA's largest subnormal).
    const double inf = std::numeric_limits<double>::infinity();
    const double min_normal = std::numeric_limits<double>::min();
    const double max = std::numeric_limits<double>::max();
    std::vector<double> x = {0.0,
                             -0.0,
                             inf,
                             -inf,
                             std::numeric_limits<double>::quiet_NaN(),
                             1.0,
                             -1.0,
                             3.0,
                             0.1,
                             min_normal,
                             -min_normal,
                             std::nextafter(min_normal, 0.0),
                             5e-324,
                             -5e-324,
                             1e-310,
                             5.6e-309,
                             -5.5e-309,
                             std::ldexp(1.0, 1022),
                             std::nextafter(std::ldexp(1.0, 1022), inf),
                             std::ldexp(1.0, 1023),
                             max,
                             -max,
                             1e308,
                             -4.5e307};
    std::mt19937_64 rng(2027);
    std::uniform_real_distribution<double> mantissa(1.0, 2.0);
    std::uniform_int_distribution<int> exponent(-1074, 1023), sign(0, 1);
    while (x.size() < (1u << 20)) {
      const double v = std::ldexp(mantissa(rng), exponent(rng));
      if (v != 0.0 && std::isfinite(v)) x.push_back(sign(rng) ? -v : v);
    }
    const auto [o, c] = ours_and_cudas("dj_rcp(a)", "1.0 / a", x);
    size_t far = 0, differ = 0, flushed = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double ax = std::fabs(x[i]);
      if (ax != 0.0 && (ax < min_normal || (ax > std::ldexp(1.0, 1022) && ax != inf))) {
        ++flushed;
        const double want = std::copysign(ax < min_normal ? inf : 0.0, x[i]);
        const bool next_to_cudas = c[i] != 0.0 && std::nextafter(c[i], o[i]) == o[i];
        if (std::memcmp(&o[i], &want, sizeof(double)) != 0 && !next_to_cudas && far++ < 5)
          MESSAGE("1 / " << x[i] << ": " << o[i] << ", not flushed to " << want);
        continue;
      }
      if (std::memcmp(&o[i], &c[i], sizeof(double)) == 0 || (std::isnan(o[i]) && std::isnan(c[i])))
        continue;
      ++differ;
      // Within 1 ulp (the next double from CUDA's result towards ours is ours), and only where
      // the result is finite and nonzero.
      const bool near = std::isfinite(c[i]) && c[i] != 0.0 && std::nextafter(c[i], o[i]) == o[i];
      if (!near && far++ < 5) MESSAGE("1 / " << x[i] << ": " << o[i] << " against " << c[i]);
    }
    MESSAGE(flushed << " subnormal or beyond 2^1022, flushed");
    MESSAGE(differ << " of " << x.size() << " differ from CUDA's 1.0 / x in the last bit");
    CHECK(far == 0);
  }

  TEST_CASE("CUDA backend: the module is loaded once per process" * test::needs_gpu()) {
    jit::KernelCache cache(std::nullopt);
    jit::LoweringOptions o;
    o.mode = Mode::Gradient;
    const cuda::CudaKernel a(jit::lower(test::spring_kernel(), o), cache);
    const cuda::CudaKernel b(jit::lower(test::spring_kernel(), o), cache);
    CHECK(a.compiled_now());
    CHECK_FALSE(b.compiled_now());
  }
}
