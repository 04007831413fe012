// Lowering: plans, pruning against fixed-width duals, golden sources, NVRTC compiles of
// every generated kernel for sm_80 and sm_90.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "dsl/sha256.h"
#include "jit/cuda_image.h"
#include "jit/lowering.h"
#include "jit/nvrtc_compiler.h"
#include "support/golden.h"
#include "support/random_kernel.h"
#include "support/test_kernels.h"

using namespace dualjit;
using namespace dualjit::jit;

namespace {

LoweringOptions opts(Mode mode, int width, bool prune = true, LaunchLayout layout = {}) {
  LoweringOptions o;
  o.mode = mode;
  o.width = width;
  o.prune = prune;
  o.layout = layout;
  return o;
}

}  // namespace

TEST_CASE(
    "plans split directions into ceil(n / W) chunks of equal size; Hessians keep the upper "
    "triangle") {
  const Kernel roe = cfd::roe_flux_kernel();
  for (int w = 1; w <= 10; ++w) {
    CAPTURE(w);
    const auto p = plan_derivatives(roe, Mode::Jacobian, w);
    const size_t n_chunks = static_cast<size_t>((10 + w - 1) / w);
    CHECK(p.chunks.size() == n_chunks);
    std::vector<int> columns;
    size_t smallest = 10, largest = 0;
    for (const auto& c : p.chunks) {
      columns.insert(columns.end(), c.first_columns.begin(), c.first_columns.end());
      smallest = std::min(smallest, c.directions.size());
      largest = std::max(largest, c.directions.size());
    }
    std::vector<int> expected(10);
    for (int j = 0; j < 10; ++j) expected[j] = j;
    CHECK(columns == expected);  // each column once, in order
    CHECK(largest <= static_cast<size_t>(w));
    CHECK(largest - smallest <= 1);  // W = 6..9 give 5 + 5, not 6 + 4
    CHECK(p.chunks[0].writes_values);
  }
  const Kernel spring = test::spring_kernel();
  for (int w : {1, 2, 4, 6}) {
    const auto p = plan_derivatives(spring, Mode::Hessian, w);
    size_t pairs = 0;
    for (const auto& c : p.chunks) pairs += c.pairs.size();
    CHECK(pairs == 21);  // 6 * 7 / 2
    const auto lowered = lower(spring, opts(Mode::Hessian, w));
    size_t second_stores = 0;
    for (const auto& c : lowered.chunk_ops) second_stores += c.stores;
    CHECK(second_stores == 21 + 6 + 1);  // Hessian, gradient, value
  }
  CHECK_THROWS_AS(plan_derivatives(roe, Mode::Hessian, 2), DslError);
}

TEST_CASE(
    "pruned code never does more operations than fixed-width duals; strictly fewer on the flux") {
  const Kernel roe = cfd::roe_flux_kernel(), spring = test::spring_kernel(),
               rate = test::arrhenius_kernel();
  struct Case {
    const Kernel* k;
    Mode mode;
  };
  for (const Case c : {Case{&roe, Mode::Jacobian}, Case{&spring, Mode::Hessian},
                       Case{&spring, Mode::Hvp}, Case{&rate, Mode::Jacobian}}) {
    for (int w : {1, 2, 3, 0}) {
      CAPTURE(c.k->name());
      CAPTURE(w);
      const auto pruned = lower(*c.k, opts(c.mode, w, true));
      const auto full = lower(*c.k, opts(c.mode, w, false));
      MESSAGE(c.k->name() << " " << mode_name(c.mode) << " W=" << pruned.plan.width
                          << ": pruned flops " << pruned.ops.flops() << ", fixed-width "
                          << full.ops.flops());
      CHECK(pruned.ops.flops() <= full.ops.flops());
      CHECK(pruned.ops.mul <= full.ops.mul);
      CHECK(pruned.ops.add <= full.ops.add);
      if (c.k == &roe) CHECK(pruned.ops.flops() < full.ops.flops());
    }
  }
  // The flux at the paper's widths: pruning must cut a real fraction, not a rounding error.
  const auto p5 = lower(roe, opts(Mode::Jacobian, 5, true));
  const auto f5 = lower(roe, opts(Mode::Jacobian, 5, false));
  CHECK(p5.ops.flops() < 0.8 * f5.ops.flops());
}

TEST_CASE("random graphs: pruning never costs operations") {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    test::RandomKernelOptions o;
    o.seed = seed;
    o.n_outputs = seed % 3 == 0 ? 1 : 2;
    const Kernel k = test::random_kernel(o);
    for (int w : {1, 2, 4}) {
      const auto p = lower(k, opts(Mode::Jacobian, w, true));
      const auto f = lower(k, opts(Mode::Jacobian, w, false));
      CHECK(p.ops.flops() <= f.ops.flops());
    }
  }
}

TEST_CASE("golden sources: a codegen change shows as a reviewable diff") {
  // DUALJIT_UPDATE_GOLDEN=1 rewrites the files instead of comparing (support/golden.h).
  const std::filesystem::path dir = std::filesystem::path(DUALJIT_SOURCE_DIR) / "tests/jit/golden";
  const Kernel tiny("tiny", [](KernelBuilder& kb) {
    auto x = kb.input("x", 2);
    auto p = kb.param("p", 1);
    Expr s = kb.uniform("s");
    kb.output("f", {x[0] * sin(x[1]) + p[0], sqrt(x[0] * x[0] + s) * x[1]});
  });
  const Kernel spring = test::spring_kernel();
  struct Golden {
    const Kernel* k;
    LoweringOptions o;
    std::string file;
  };
  const Kernel roe = cfd::roe_flux_kernel();
  const std::vector<Golden> cases = {
      {&tiny, opts(Mode::Jacobian, 1), "tiny_jacobian_w1.cu"},
      {&spring, opts(Mode::Hessian, 3), "spring_hessian_w3.cu"},
      {&spring, opts(Mode::Hvp, 6, true, {2, 64}), "spring_hvp_w6_t2.cu"},
      // The Roe flux Jacobian as the FUN3D assembly runs it (W = 10, one chunk).
      {&roe, opts(Mode::Jacobian, 10, true, {1, 64}), "roe_flux_jacobian_w10.cu"},
  };
  for (const auto& g : cases) {
    const LoweredKernel lk = lower(*g.k, g.o);
    test::check_golden(dir / g.file, test::golden_text(lk, lk.cuda_source, false));
  }
}

TEST_CASE("IR dumps: one file after each pass") {
  const auto dir = std::filesystem::temp_directory_path() / "dualjit-dump-test";
  std::filesystem::remove_all(dir);
  auto o = opts(Mode::Jacobian, 5);
  o.dump_dir = dir.string();
  const auto l = lower(cfd::roe_flux_kernel(), o);
  for (const char* step : {"0-kernel.txt", "1-plan.txt", "c0.2-expanded.txt", "c1.3-scheduled.txt",
                           "4-element.txt", "5-cuda.cu", "5-host.cpp", "6-report.txt"}) {
    CAPTURE(step);
    CHECK(std::filesystem::file_size(dir / (l.symbol + "." + step)) > 0);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("source digests: the SHA-256 of each source, made on first use, shared by copies") {
  const LoweredKernel l = lower(test::spring_kernel(), opts(Mode::Hessian, 0));
  const LoweredKernel copy = l;
  CHECK(copy.cuda_source_sha256() == sha256_hex(l.cuda_source));
  CHECK(&copy.cuda_source_sha256() == &l.cuda_source_sha256());  // hashed once
  CHECK(l.host_source_sha256() == sha256_hex(l.host_source));
  // A kernel lowered again has the same text, hence the same digest, in a memo of its own.
  const LoweredKernel again = lower(test::spring_kernel(), opts(Mode::Hessian, 0));
  CHECK(again.cuda_source_sha256() == l.cuda_source_sha256());
  CHECK(&again.cuda_source_sha256() != &l.cuda_source_sha256());
}

TEST_CASE("bad layouts and bindings are rejected with the kernel's name") {
  const Kernel spring = test::spring_kernel();
  CHECK_THROWS_WITH_AS(lower(spring, opts(Mode::Gradient, 0, true, {1, 48})),
                       doctest::Contains("spring"), std::invalid_argument);
  auto o = opts(Mode::Gradient, 0);
  o.input_vertex = {0};
  CHECK_THROWS_WITH_AS(lower(spring, o), doctest::Contains("binding"), std::invalid_argument);
  // Companion kernels need a driver that calls them: the element-local one does not.
  auto c = opts(Mode::Hessian, 0);
  c.companions = {std::make_shared<const Kernel>(test::spring_kernel())};
  CHECK_THROWS_WITH_AS(lower(spring, c), doctest::Contains("companion kernels need a driver"),
                       std::invalid_argument);
}

TEST_CASE("NVRTC compiles every generated kernel to CUBIN for sm_80 and sm_90") {
  KernelCache cache(std::nullopt);  // memory only: this test measures the compiler
  const Kernel roe = cfd::roe_flux_kernel(), spring = test::spring_kernel(),
               rate = test::arrhenius_kernel();
  test::RandomKernelOptions ro;
  ro.seed = 3;
  const Kernel rnd = test::random_kernel(ro);
  test::RandomKernelOptions ro1 = ro;
  ro1.n_outputs = 1;
  ro1.smooth_only = false;
  const Kernel rnd1 = test::random_kernel(ro1, "random_scalar");
  struct Case {
    const Kernel* k;
    Mode mode;
    std::vector<int> widths;
  };
  const std::vector<Case> cases = {
      {&roe, Mode::Jacobian, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
      {&roe, Mode::Value, {0}},
      {&spring, Mode::Hessian, {1, 3, 6}},
      {&spring, Mode::Hvp, {2, 6}},
      {&spring, Mode::Gradient, {3}},
      {&rate, Mode::Jacobian, {1, 2, 4}},
      {&rnd, Mode::Jacobian, {1, 4}},
      {&rnd1, Mode::Hessian, {2}},
  };
  int compiled = 0;
  for (const auto& c : cases) {
    for (int w : c.widths) {
      for (LaunchLayout layout : {LaunchLayout{1, 128}, LaunchLayout{2, 64}}) {
        const auto lowered = lower(*c.k, opts(c.mode, w, true, layout));
        for (const std::string arch : {"sm_80", "sm_90"}) {
          CAPTURE(lowered.symbol);
          CAPTURE(arch);
          CompileOptions co;
          co.arch = arch;
          const CudaImage img = cuda_image(lowered, co, cache);
          CHECK(img.is_cubin);
          REQUIRE(img.entry->payload.size() > 4);
          CHECK(std::string(img.entry->payload.data() + 1, 3) == "ELF");
          CHECK(img.ptxas.registers > 0);
          if (c.k == &roe) {
            MESSAGE(lowered.symbol << " " << arch << ": " << img.ptxas.registers << " registers, "
                                   << img.ptxas.stack_bytes << " B stack, max live "
                                   << lowered.max_live);
          }
          if (c.k == &roe && arch == "sm_90") {
            // Straight-line scalar code: nothing may go to local memory at any width of a
            // 10-input flux (W = 6..9 run two chunks of 5: jit/derivative_plan.h).
            CHECK(img.ptxas.stack_bytes == 0);
            CHECK(img.ptxas.spill_store_bytes == 0);
          }
          ++compiled;
        }
      }
    }
  }
  MESSAGE(compiled << " kernels compiled");
  CHECK(compiled == 2 * 2 * 23);
}

TEST_CASE("long element functions are split into non-inlined pieces that NVRTC compiles") {
  KernelCache cache(std::nullopt);
  auto o = opts(Mode::Jacobian, 5);
  o.max_statements_per_function = 200;
  const auto split = lower(cfd::roe_flux_kernel(), o);
  CHECK(split.cuda_source.find("DJ_NOINLINE void " + split.symbol + "_c0_s1(") !=
        std::string::npos);
  CompileOptions co;
  co.arch = "sm_90";
  const auto img = cuda_image(split, co, cache);
  CHECK(img.is_cubin);
  // The flux is small: automatic policy keeps it whole and fully optimised.
  const auto whole = lower(cfd::roe_flux_kernel(), opts(Mode::Jacobian, 5));
  CHECK(whole.cuda_source.find("DJ_NOINLINE void") == std::string::npos);
  CHECK(default_compile_options(whole, "sm_90").extra.empty());
  CHECK(default_compile_options(whole, "sm_90").opt_level == 3);
}

TEST_CASE("chemistry-sized graphs: split automatically and compiled with fast-compile") {
  test::RandomKernelOptions ro;
  ro.n_inputs = 20;
  ro.n_nodes = 2000;
  ro.n_outputs = 20;
  ro.seed = 5;
  const Kernel big = test::random_kernel(ro, "big");
  const auto l = lower(big, opts(Mode::Jacobian, 10));
  CHECK(l.statements > kLargeKernel);
  CHECK(l.cuda_source.find("_c0_s1(") != std::string::npos);
  const CompileOptions co = default_compile_options(l, "sm_90");
  CHECK(co.extra == std::vector<std::string>{"--Ofast-compile=max"});
  KernelCache cache(std::nullopt);
  const auto img = cuda_image(l, co, cache);
  CHECK(img.is_cubin);
  MESSAGE("big graph: " << big.graph().size() << " nodes, " << l.statements << " statements, "
                        << l.cuda_source.size() / 1024 << " KB, NVRTC " << img.compile_seconds
                        << " s, " << img.ptxas.registers << " registers, " << img.ptxas.stack_bytes
                        << " B stack");
}

TEST_CASE(
    "chunks of more than kOutlineSpecials statements call their special functions out of line") {
  // A rate-law-like sum: each term an exp of its own affine argument, some with a log.
  const Kernel many("many_exps", [](KernelBuilder& kb) {
    const auto x = kb.input("x", 3);
    const Expr log_x = log(x[0]);
    Expr sum = x[2];
    for (int i = 0; i < 900; ++i) {
      const Expr arg = (0.01 * i) * log_x - (1.0 + 0.001 * i) * x[1];
      sum = sum + x[2] * exp(arg);
      if (i % 7 == 0) sum = sum + log(x[2] + 0.1 * i);
      if (i % 11 == 0) sum = sum + 1.0 / (x[0] + 0.1 * i);
    }
    kb.output("f", {sum});
  });
  const auto l = lower(many, opts(Mode::Value, 0));
  REQUIRE(l.statements > kOutlineSpecials);
  CHECK(l.cuda_source.find("static __device__ __noinline__ double dj_exp(double a)") !=
        std::string::npos);
  CHECK(l.cuda_source.find("__ldg(&dj_exp_2j[n & 127])") != std::string::npos);  // the table's
  CHECK(l.host_source.find("dj_exp_2j") == std::string::npos);  // the host calls exp()
  // Its 900 independent exps, two a call (jit/pair_exps.h).
  CHECK(l.element_source.find("dj_exp2(t") != std::string::npos);
  CHECK(l.cuda_source.find("static __device__ __noinline__ dj_d2 dj_exp2(double a, double b)") !=
        std::string::npos);
  CHECK(l.host_source.find("dj_d2 dj_exp2(double a, double b)") != std::string::npos);
  CHECK(l.element_source.find("dj_log(t") != std::string::npos);
  // Reciprocals too, inline: CUDA's without its branch, the host's a division.
  CHECK(l.element_source.find("dj_rcp(t") != std::string::npos);
  CHECK(l.element_source.find("1.0 / ") == std::string::npos);
  CHECK(l.cuda_source.find("rcp.approx.ftz.f64") != std::string::npos);
  CHECK(l.host_source.find("double dj_rcp(double x) { return 1.0 / x; }") != std::string::npos);
  // No call is left inline: every exp( and log( in the element code is a dj_ one.
  for (const char* f : {"exp(", "log("}) {
    for (size_t at = l.element_source.find(f); at != std::string::npos;
         at = l.element_source.find(f, at + 1)) {
      CHECK(l.element_source.compare(at - 3, 3, "dj_") == 0);
    }
  }
  CompileOptions co;
  co.arch = "sm_90";
  KernelCache cache(std::nullopt);
  CHECK(cuda_image(l, co, cache).is_cubin);
  // Small kernels keep their specials inline, and the definitions out of their source.
  const auto small = lower(test::arrhenius_kernel(), opts(Mode::Jacobian, 0));
  CHECK(small.statements <= kOutlineSpecials);
  CHECK(small.cuda_source.find("dj_exp") == std::string::npos);
  CHECK(small.cuda_source.find("dj_rcp") == std::string::npos);
}

TEST_CASE("staged first derivatives: each chunk's range through the warp's stage, else tiles") {
  LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.rows = 2;
  const Kernel k = test::cut_kernel(true);
  const LoweredKernel plain = lower(k, o);
  o.first_stores = FirstStores::Staged;
  const LoweredKernel staged = lower(k, o);
  CHECK(staged.symbol == plain.symbol + "_sf");
  CHECK(staged.options.first_stores == FirstStores::Staged);
  // Each chunk stores two whole rows: its stage holds 2 n entries, a warp's 32 elements each.
  const int n = k.n_inputs();
  REQUIRE(staged.plan.chunks.size() >= 2);
  CHECK(staged.launch.dynamic_shared_bytes == size_t(o.layout.block_threads()) * 2 * n * 8);
  CHECK(staged.cuda_source.find("extern __shared__ double dj_stage[];") != std::string::npos);
  // Chunk 1 (rows 2 and 3) writes entries [2n, 4n) from its stage when it ends; its last entry
  // sits at k * 32 + (lane ^ k % 32), k counted from its range's start.
  CHECK(staged.cuda_source.find("_flush<" + std::to_string(2 * n) + "LL, " + std::to_string(2 * n) +
                                ">(a, e0, st);") != std::string::npos);
  const int last = 2 * n - 1;
  CHECK(staged.cuda_source.find("d1[" + std::to_string(32 * last) + " + (dj_lane() ^ " +
                                std::to_string(last % 32) + ")] = ") != std::string::npos);
  CHECK(staged.host_source.find("double st[" + std::to_string(32 * 2 * n) + "];") !=
        std::string::npos);
  // The driver's text compiles for the GPU (the CPU backend's tests run the host text), in
  // either order; component-major, each lane writes its own element's entries n apart.
  CHECK(
      nvrtc_compile(staged.cuda_entry, staged.cuda_source, default_compile_options(staged, "sm_90"))
          .is_cubin);
  o.first_stores = FirstStores::StagedComponentMajor;
  const LoweredKernel columns_major = lower(k, o);
  CHECK(columns_major.symbol == plain.symbol + "_sfc");
  CHECK(columns_major.cuda_source.find("a.first[(LO + k) * a.n_elements + e0 + lane]") !=
        std::string::npos);
  CHECK(nvrtc_compile(columns_major.cuda_entry, columns_major.cuda_source,
                      default_compile_options(columns_major, "sm_90"))
            .is_cubin);
  o.first_stores = FirstStores::Staged;
  // Chunks of some columns store no single range: tiles instead, as the options then say.
  o.rows = 0;
  o.width = 2;
  const LoweredKernel columns = lower(k, o);
  CHECK(columns.options.first_stores == FirstStores::Tiled);
  CHECK(columns.symbol.find("_tf") != std::string::npos);
  CHECK(columns.launch.dynamic_shared_bytes == 0);
  // So does a warp's stage larger than eight warps may share: 20 x 20 entries whole, 400 a lane
  // (100 KB a warp); in rows of 2, 40 (10 KB).
  test::RandomKernelOptions ro;
  ro.n_inputs = ro.n_outputs = 20;
  ro.n_nodes = 200;
  const Kernel wide = test::random_kernel(ro, "wide");
  o.width = 0;
  const LoweredKernel whole = lower(wide, o);
  REQUIRE(stage_bytes(32, static_cast<int>(whole.first_size)) > kMaxStageBytesPerWarp);
  CHECK(whole.options.first_stores == FirstStores::Tiled);
  o.rows = 2;
  CHECK(lower(wide, o).options.first_stores == FirstStores::Staged);
}

TEST_CASE(
    "tiled first derivatives: entry k of element e at (e / 32 * first_size + k) * 32 + e % 32") {
  LoweringOptions o;
  o.mode = Mode::Jacobian;
  const LoweredKernel plain = lower(test::spring_kernel(), o);
  o.first_stores = FirstStores::Tiled;
  const LoweredKernel tiled = lower(test::spring_kernel(), o);
  CHECK(tiled.symbol == plain.symbol + "_tf");
  CHECK(tiled.first_size == plain.first_size);
  const std::string base =
      "double* d1 = a.first + (e / 32) * " + std::to_string(32 * tiled.first_size) + " + e % 32;";
  CHECK(tiled.cuda_source.find(base) != std::string::npos);
  CHECK(plain.cuda_source.find(base) == std::string::npos);
  // Every store of entry k writes d1[k * 32]: the last entry's index is 32 (first_size - 1).
  const std::string last = "d1[" + std::to_string(32 * (tiled.first_size - 1)) + "] = ";
  CHECK(tiled.cuda_source.find(last) != std::string::npos);
  CHECK(plain.cuda_source.find("d1[" + std::to_string(tiled.first_size - 1) + "] = ") !=
        std::string::npos);
  CHECK(tiled.host_source.find(base) != std::string::npos);  // the CPU runs the same text
}
