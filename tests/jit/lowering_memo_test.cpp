// The lowering memo: chunks read back from the disk cache give the same kernel, to the byte;
// the key changes with everything the chunk passes read; damaged entries are lowered again.
#include "jit/lowering_memo.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "jit/element_driver.h"
#include "jit/kernel_cache.h"
#include "support/random_kernel.h"
#include "support/test_kernels.h"

using namespace dualjit;
using namespace dualjit::jit;

namespace {

// DUALJIT_LOWERING_MEMO=0 for a scope: the passes run.
struct MemoOff {
  MemoOff() { setenv("DUALJIT_LOWERING_MEMO", "0", 1); }
  ~MemoOff() { unsetenv("DUALJIT_LOWERING_MEMO"); }
};

void check_same(const LoweredKernel& a, const LoweredKernel& b) {
  CHECK(a.symbol == b.symbol);
  CHECK(a.element_source == b.element_source);
  CHECK(a.cuda_source == b.cuda_source);
  CHECK(a.host_source == b.host_source);
  CHECK(a.report() == b.report());
  CHECK(a.chunk_statements == b.chunk_statements);
  CHECK(a.chunk_live == b.chunk_live);
  CHECK(a.statements == b.statements);
  CHECK(a.max_live == b.max_live);
  CHECK(a.ops.flops() == b.ops.flops());
  CHECK(a.ops.stores == b.ops.stores);
  CHECK(a.args.struct_text("T") == b.args.struct_text("T"));
  CHECK(a.launch.block_threads == b.launch.block_threads);
  CHECK(a.launch.items_per_block == b.launch.items_per_block);
  CHECK(a.first_size == b.first_size);
  CHECK(a.second_size == b.second_size);
}

struct Case {
  std::string name;
  std::function<Kernel()> kernel;
  LoweringOptions options;
};

std::vector<Case> cases() {
  std::vector<Case> all;
  LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.width = 5;
  o.layout = {2, 64};
  all.push_back({"roe, Jacobian, W 5, two threads", [] { return cfd::roe_flux_kernel(); }, o});
  o = {};
  o.mode = Mode::Hessian;
  o.width = 2;
  all.push_back({"spring, Hessian, W 2", [] { return test::spring_kernel(); }, o});
  o = {};
  o.mode = Mode::Hvp;
  o.single_tangents = true;
  all.push_back(
      {"random, HVP, fp32 tangents", [] { return test::random_kernel({.n_outputs = 1}); }, o});
  o = {};
  o.mode = Mode::Jacobian;
  o.width = 2;
  o.max_statements_per_function = 5;  // split into pieces
  o.prune = false;
  all.push_back({"random, Jacobian in pieces, unpruned",
                 [] { return test::random_kernel({.n_nodes = 80, .seed = 7}); }, o});
  o = {};
  o.mode = Mode::Jacobian;
  o.sparse_jacobian = true;
  o.schedule = ScheduleKind::LeastLive;
  all.push_back({"arrhenius, sparse Jacobian", [] { return test::arrhenius_kernel(); }, o});
  return all;
}

}  // namespace

TEST_CASE("lowering memo: a second lowering reads the chunks back and gives the same bytes") {
  REQUIRE(KernelCache::global().disk() != nullptr);
  REQUIRE_FALSE(lowering_code_identity().empty());
  for (const Case& c : cases()) {
    CAPTURE(c.name);
    const Kernel k = c.kernel();
    LoweredKernel fresh;
    {
      MemoOff off;
      fresh = lower(k, c.options);
    }
    const LoweredKernel first = lower(k, c.options);  // keeps the chunks, or reads them
    const std::string key =
        lowering_memo_key(k, first.options, first.plan, first.symbol, /*split=*/false);
    REQUIRE(key.size() == 64);
    const std::optional<LoweredChunks> kept = load_lowered_chunks(key);
    REQUIRE(kept.has_value());
    CHECK(kept->texts.size() == first.plan.chunks.size());
    check_same(first, fresh);
    check_same(lower(k, c.options), fresh);

    // The read is what lower() uses: a marked entry shows in the source, and the kept one
    // restores it.
    LoweredChunks marked = *kept;
    marked.texts.back() += "// read from the memo\n";
    store_lowered_chunks(key, k.name(), first.symbol, marked);
    CHECK(lower(k, c.options).cuda_source.find("// read from the memo") != std::string::npos);
    store_lowered_chunks(key, k.name(), first.symbol, *kept);
    check_same(lower(k, c.options), fresh);
  }
}

TEST_CASE("lowering memo: kernels in launches come back the same, launch by launch") {
  const Kernel k = test::random_kernel({.n_nodes = 120, .n_outputs = 6, .seed = 3});
  LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.rows = 1;
  o.launches = 3;
  std::vector<LoweredKernel> fresh;
  {
    MemoOff off;
    fresh = lower_launches(k, o);
  }
  REQUIRE(fresh.size() == 3);
  for (int pass = 0; pass < 2; ++pass) {  // keeps the chunks, then reads them
    const std::vector<LoweredKernel> parts = lower_launches(k, o);
    REQUIRE(parts.size() == fresh.size());
    for (size_t u = 0; u < parts.size(); ++u) check_same(parts[u], fresh[u]);
  }
  // The whole kernel and its launches are kept apart: the same chunks under other symbols.
  const LoweredKernel whole = lower(k, o);
  const std::string whole_key =
      lowering_memo_key(k, whole.options, whole.plan, whole.symbol, false);
  const std::string split_key = lowering_memo_key(k, whole.options, whole.plan, whole.symbol, true);
  CHECK(whole_key != split_key);
  REQUIRE(load_lowered_chunks(split_key).has_value());
  CHECK(load_lowered_chunks(split_key)->texts != load_lowered_chunks(whole_key)->texts);
}

TEST_CASE("lowering memo: the key changes with everything the chunk passes read") {
  const Kernel k = test::random_kernel({.seed = 11});
  LoweringOptions base;
  base.mode = Mode::Jacobian;
  base.width = 2;
  base.schedule = ScheduleKind::DepthFirst;
  const DerivativePlan plan = plan_derivatives(k, base.mode, base.width);
  const auto key = [&](const Kernel& kk, const LoweringOptions& o, const DerivativePlan& p,
                       const std::string& symbol = "dj_random",
                       bool split = false) { return lowering_memo_key(kk, o, p, symbol, split); };
  const std::string reference = key(k, base, plan);
  REQUIRE(reference.size() == 64);
  CHECK(key(k, base, plan) == reference);  // the same inputs, the same key

  std::vector<std::pair<std::string, std::string>> variants;
  const auto vary = [&](const std::string& what, const std::function<void(LoweringOptions&)>& f) {
    LoweringOptions o = base;
    f(o);
    variants.emplace_back(what, key(k, o, plan));
  };
  vary("mode", [](LoweringOptions& o) { o.mode = Mode::Value; });
  vary("width", [](LoweringOptions& o) { o.width = 3; });
  vary("rows", [](LoweringOptions& o) { o.rows = 1; });
  vary("threads per element", [](LoweringOptions& o) { o.layout.threads_per_element = 2; });
  vary("elements per block", [](LoweringOptions& o) { o.layout.elements_per_block = 64; });
  vary("min blocks", [](LoweringOptions& o) { o.layout.min_blocks = 2; });
  vary("prune", [](LoweringOptions& o) { o.prune = false; });
  vary("schedule", [](LoweringOptions& o) { o.schedule = ScheduleKind::LeastLive; });
  vary("schedule unset", [](LoweringOptions& o) { o.schedule.reset(); });
  vary("binding", [](LoweringOptions& o) { o.input_vertex = {0}; });
  vary("pieces", [](LoweringOptions& o) { o.max_statements_per_function = 100; });
  vary("fp32 tangents", [](LoweringOptions& o) { o.single_tangents = true; });
  vary("sparse Jacobian", [](LoweringOptions& o) { o.sparse_jacobian = true; });
  vary("effort", [](LoweringOptions& o) { o.compile_effort = CompileEffort::Full; });
  vary("launches", [](LoweringOptions& o) { o.launches = 2; });
  vary("chunk range", [](LoweringOptions& o) { o.chunks = {0, 1}; });
  vary("tiled first derivatives", [](LoweringOptions& o) { o.first_stores = FirstStores::Tiled; });
  vary("driver", [](LoweringOptions& o) { o.driver = element_local_driver(); });
  vary("companions", [](LoweringOptions& o) {
    o.companions = {std::make_shared<const Kernel>(test::random_kernel({.seed = 13}))};
  });
  DerivativePlan other = plan;
  other.chunks[0].writes_values = !other.chunks[0].writes_values;
  variants.emplace_back("plan: values", key(k, base, other));
  other = plan;
  other.chunks.back().first_columns.pop_back();
  variants.emplace_back("plan: columns", key(k, base, other));
  variants.emplace_back("symbol", key(k, base, plan, "dj_random_b64"));
  variants.emplace_back("split", key(k, base, plan, "dj_random", true));
  // One constant's last bit.
  const Kernel k2 = test::random_kernel({.seed = 12});
  variants.emplace_back("kernel", key(k2, base, plan_derivatives(k2, base.mode, base.width)));
  const Kernel named = test::random_kernel({.seed = 11}, "random2");
  variants.emplace_back("kernel name", key(named, base, plan));
  for (const auto& [what, v] : variants) {
    CAPTURE(what);
    CHECK(v.size() == 64);
    CHECK(v != reference);
  }

  // Off: while IR dumps are on, and when asked.
  LoweringOptions dumped = base;
  dumped.dump_dir = "/tmp/dualjit-dumps";
  CHECK(key(k, dumped, plan).empty());
  MemoOff off;
  CHECK(key(k, base, plan).empty());
}

TEST_CASE("lowering memo: a damaged or mismatched entry is lowered again") {
  const Kernel k = test::spring_kernel();
  LoweringOptions o;
  o.mode = Mode::Hessian;
  o.width = 3;
  LoweredKernel fresh;
  {
    MemoOff off;
    fresh = lower(k, o);
  }
  const LoweredKernel first = lower(k, o);
  const std::string key = lowering_memo_key(k, first.options, first.plan, first.symbol, false);
  REQUIRE(key.size() == 64);
  DiskStore* disk = KernelCache::global().disk();
  REQUIRE(disk != nullptr);

  SUBCASE("a payload that does not parse") {
    CacheEntry garbage;
    const std::string text = "dualjit-lowered-chunks-v1\n2 1 2 3";
    garbage.payload.assign(text.begin(), text.end());
    REQUIRE(disk->store(key, garbage));
    CHECK_FALSE(load_lowered_chunks(key).has_value());
  }
  SUBCASE("another kernel's number of chunks") {
    LoweredChunks one;
    one.summaries.resize(1);
    one.texts.push_back("int not_this_kernel;\n");
    store_lowered_chunks(key, k.name(), first.symbol, one);
    REQUIRE(load_lowered_chunks(key).has_value());
    REQUIRE(first.plan.chunks.size() != 1);
  }
  check_same(lower(k, o), fresh);  // lowered again, and kept
  REQUIRE(load_lowered_chunks(key).has_value());
  CHECK(load_lowered_chunks(key)->texts.size() == first.plan.chunks.size());
  check_same(lower(k, o), fresh);
}
