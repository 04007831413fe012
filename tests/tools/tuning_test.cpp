// The tuning database, the autotuning procedure and the candidate sets, in process.
#include <doctest/doctest.h>

#include <fstream>
#include <set>

#include "backends/tuning/autotuner.h"
#include "backends/tuning/fused_config.h"
#include "backends/tuning/tuned_choice.h"
#include "tools/cli_args.h"
#include "tools/problems/builtin_problems.h"
#include "tools/tool_runner.h"

using namespace dualjit;

namespace {

jit::TuningKey sample_key(int bucket = 20) {
  return {"abc123", "jacobian", "cpu", "Some CPU\tmodel", "cpu-x86_64", bucket};
}

jit::TuningRecord sample_record() {
  jit::TuningRecord r;
  r.key = sample_key();
  r.problem = "cfd-roe";
  r.n_elements = 1 << 20;
  r.winner = {{"width", "5"}, {"strategy", "gather-by-column"}};
  r.winner_ms = 1.25;
  r.heuristic = {{"width", "5"}, {"strategy", "scatter-atomic"}};
  r.heuristic_ms = 1.5;
  r.candidates = {{"a", r.heuristic, 1.5, 100, 40, 0, "ok"},
                  {"b", r.winner, 1.25, 120, 32, 8, "ok (finalist)"},
                  {"c", {{"width", "1"}}, -1, 0, -1, -1, "failed: does\tnot\ncompile"}};
  return r;
}

}  // namespace

TEST_CASE("tuning records round-trip, damaged ones are ignored, pinned ones are kept") {
  test::TempCacheDir dir;
  jit::TuningDb db(dir.path());
  CHECK(!db.load(sample_key()));
  const jit::TuningRecord r = sample_record();
  REQUIRE(db.store(r) == jit::TuningDb::StoreResult::stored);
  const auto back = db.load(sample_key());
  REQUIRE(back);
  CHECK(back->winner == r.winner);
  CHECK(back->heuristic_ms == doctest::Approx(1.5));
  CHECK(back->candidates.size() == 3);
  CHECK(back->candidates[2].status == "failed: does not compile");
  CHECK(back->key.device == "Some CPU model");
  CHECK(!db.load(sample_key(21)));  // another size bucket

  // Truncation or a flipped byte: not trusted.
  const auto path = db.record_path(sample_key());
  std::string text;
  {
    std::ifstream in(path);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(path, std::ios::trunc) << text.substr(0, text.size() / 2);
  CHECK(!db.load(sample_key()));
  std::string flipped = text;
  flipped[text.find("1.25")] = '7';
  std::ofstream(path, std::ios::trunc) << flipped;
  CHECK(!db.load(sample_key()));

  jit::TuningRecord pinned = r;
  pinned.pinned = true;
  REQUIRE(db.store(pinned) == jit::TuningDb::StoreResult::stored);
  jit::TuningRecord other = r;
  other.winner = {{"width", "10"}};
  CHECK(db.store(other) == jit::TuningDb::StoreResult::kept_pinned);
  CHECK(db.load(sample_key())->winner == r.winner);
  CHECK(db.unpin(sample_key()));
  CHECK(db.store(other) == jit::TuningDb::StoreResult::stored);
  CHECK(db.load(sample_key())->winner == other.winner);
  CHECK(db.list().size() == 1);
  CHECK(db.clear() == 1);
  CHECK(db.list().empty());
}

TEST_CASE("size buckets are powers of two") {
  CHECK(jit::size_bucket(0) == 0);
  CHECK(jit::size_bucket(1) == 0);
  CHECK(jit::size_bucket(2) == 1);
  CHECK(jit::size_bucket(6'080'000) == 22);
  CHECK(jit::size_bucket(4'194'304) == 22);
  CHECK(jit::size_bucket(4'194'303) == 21);
}

TEST_CASE("autotune: failures skipped, finalists re-timed, ties go to the default then order") {
  std::map<std::string, double> ms = {{"h", 1.00}, {"a", 0.80}, {"b", 0.81}, {"c", 2.0}};
  std::map<std::string, int> calls;
  const tuning::CandidateTimer timer = [&](const jit::TuningConfig& c, int, int) {
    const std::string name = c.at("name");
    ++calls[name];
    if (name == "bad") throw std::runtime_error("does not compile\nlong log");
    return tuning::CandidateTiming{ms.at(name), 64, 0};
  };
  const auto cand = [](const std::string& n) { return tuning::TuningCandidate{n, {{"name", n}}}; };
  tuning::AutotuneSettings s;
  s.bytes_per_run = 1e9;
  s.finalists = 2;
  jit::TuningRecord r = tuning::autotune(
      sample_key(), cand("h"), {cand("c"), cand("bad"), cand("b"), cand("a"), cand("h")}, timer, s);
  CHECK(r.candidates.size() == 5);  // the heuristic once
  CHECK(r.candidates[0].label == "h");
  CHECK(r.candidates[2].status == "failed: does not compile");
  // a and b tie (within 2%): the earlier in enumeration order (b) wins.
  CHECK(r.winner.at("name") == "b");
  CHECK(r.heuristic_ms == doctest::Approx(1.0));
  CHECK(calls["a"] == 2);  // finalist: timed again
  CHECK(calls["h"] == 2);  // the heuristic is always a finalist
  CHECK(calls["c"] == 1);
  CHECK(r.candidates[3].gbps == doctest::Approx(1e9 / 0.81e-3 / 1e9));

  // The heuristic within the tie tolerance of the fastest keeps its place.
  ms["h"] = 0.805;
  r = tuning::autotune(sample_key(), cand("h"), {cand("a"), cand("b")}, timer, s);
  CHECK(r.winner.at("name") == "h");

  // A budget of zero: only the heuristic is timed.
  s.budget_seconds = 0;
  r = tuning::autotune(sample_key(), cand("h"), {cand("a"), cand("b")}, timer, s);
  CHECK(r.winner.at("name") == "h");
  CHECK(r.candidates[1].status == "skipped: budget");

  s.budget_seconds = 100;
  CHECK_THROWS_AS(tuning::autotune(sample_key(), cand("bad"), {}, timer, s), std::runtime_error);
}

TEST_CASE("fused candidates: a pruned, unique set containing the heuristic; fields round-trip") {
  for (bool jacobian : {true, false}) {
    const auto cuda = tuning::fused_candidates(tuning::Target::Cuda, 5, 2, jacobian);
    if (jacobian) {
      CHECK(cuda.size() >= 20);
      CHECK(cuda.size() <= 40);
    }
    std::set<std::string> seen;
    int gathers_staged = 0, gathers_plain = 0, warp_specialized = 0;
    for (const auto& o : cuda) {
      const std::string text = jit::format_config(tuning::fused_config(o));
      CHECK(seen.insert(text).second);
      CHECK(jit::format_config(
                tuning::fused_config(tuning::fused_options(tuning::fused_config(o)))) == text);
      if (o.strategy.find("gather") != std::string::npos) {
        CHECK(o.layout.threads_per_element == 1);
        CHECK(!o.pre_reduce);
        gathers_staged += o.strategy == "staged-gather" || o.strategy == "warp-specialized-gather";
        gathers_plain += o.strategy == "gather-by-column";
        warp_specialized += o.strategy == "warp-specialized-gather";
        if (jacobian) CHECK(o.width == 5);
      }
    }
    // Both gathers are candidates: node-owned tiles (staged, one of them warp-specialised) and
    // one thread per node.
    CHECK(gathers_staged == 3);
    CHECK(gathers_plain == 2);
    CHECK(warp_specialized == 1);
    const auto h =
        tuning::fused_config(tuning::fused_heuristic(tuning::Target::Cuda, 5, 2, jacobian));
    CHECK(seen.count(jit::format_config(h)) == 1);
  }
  const auto cpu = tuning::fused_candidates(tuning::Target::Cpu, 5, 2);
  CHECK(cpu.size() == 4);
  CHECK_THROWS_AS(tuning::fused_options({{"strategy", "sideways"}}), std::invalid_argument);
  CHECK_THROWS_AS(tuning::fused_options({{"width", "five"}}), std::invalid_argument);
}

TEST_CASE("choose_config: explicit over tuned over heuristic; an unusable record is ignored") {
  test::TempCacheDir dir;
  jit::TuningDb db(dir.path());
  const jit::TuningConfig heuristic = {{"width", "5"}};
  auto c = tuning::choose_config(db, sample_key(), heuristic, {});
  CHECK(c.source == tuning::ChoiceSource::Heuristic);
  CHECK(c.config == heuristic);
  jit::TuningRecord r = sample_record();
  db.store(r);
  c = tuning::choose_config(db, sample_key(), heuristic, {});
  CHECK(c.source == tuning::ChoiceSource::Tuned);
  CHECK(c.config == r.winner);
  c = tuning::choose_config(db, sample_key(), heuristic, jit::TuningConfig{{"width", "1"}});
  CHECK(c.source == tuning::ChoiceSource::Explicit);
  r.winner = {{"strategy", "sideways"}};
  db.store(r);
  c = tuning::choose_config(db, sample_key(), heuristic, {},
                            [](const jit::TuningConfig& x) { tuning::fused_options(x); });
  CHECK(c.source == tuning::ChoiceSource::Heuristic);
}

TEST_CASE("sizes and counts on the command line") {
  CHECK(tools::parse_byte_size("100M") == 100ull << 20);
  CHECK(tools::parse_byte_size("2G") == 2ull << 30);
  CHECK(tools::parse_byte_size("512k") == 512ull << 10);
  CHECK(tools::parse_byte_size("1.5KiB") == 1536);
  CHECK(tools::parse_byte_size("4096") == 4096);
  CHECK_THROWS_AS(tools::parse_byte_size("12Q"), tools::UsageError);
  CHECK_THROWS_AS(tools::parse_byte_size("-3M"), tools::UsageError);
  CHECK(tools::parse_count("6M") == 6'000'000);
  CHECK(tools::parse_count("100k") == 100'000);
  CHECK_THROWS_AS(tools::parse_count("1.5"), tools::UsageError);
}

TEST_CASE("a problem's baselines: listed, prepared by name and checked; unknown names rejected") {
  using namespace dualjit;
  tools::register_builtin_problems();
  auto roe = tools::find_problem("cfd-roe").build(300);
  const auto list = roe->baselines(Mode::Jacobian, tools::Target::Cpu);
  REQUIRE(list.size() == 1);
  CHECK(list[0].name == "two-pass");
  auto run = roe->prepare_baseline("two-pass", Mode::Jacobian, tools::Target::Cpu);
  run->run();
  const auto checks = run->check(40);
  CHECK(checks.size() == 3);
  for (const auto& c : checks) {
    CAPTURE(c.what);
    CHECK(c.ok());
  }
  CHECK_THROWS_WITH_AS(roe->prepare_baseline("nope", Mode::Jacobian, tools::Target::Cpu),
                       doctest::Contains("known: two-pass"), std::invalid_argument);
  auto spring = tools::find_problem("spring").build(100);
  CHECK(spring->baselines(Mode::Hessian, tools::Target::Cpu).empty());
  CHECK_THROWS_WITH_AS(spring->prepare_baseline("two-pass", Mode::Hessian, tools::Target::Cpu),
                       doctest::Contains("none registered"), std::invalid_argument);
}

TEST_CASE("problem options: declared with build_with_options, well formed, and only those") {
  using namespace dualjit;
  tools::register_builtin_problems();
  const auto recipe = [](std::vector<tools::ProblemOption> options) {
    tools::ProblemRecipe r;
    r.name = "options-test";
    r.modes = {Mode::Value};
    r.options = std::move(options);
    r.build_with_options = [](int64_t size, const tools::ProblemOptionValues& values) {
      return tools::find_problem("spring").build(size + static_cast<int64_t>(values.size()));
    };
    return r;
  };
  // Malformed options, or options with the option-less build, are refused at registration.
  CHECK_THROWS_WITH_AS(tools::register_problem(recipe({{"-x", "X", "help"}})),
                       doctest::Contains("must be --NAME"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(tools::register_problem(recipe({{"--x", "", "help"}})),
                       doctest::Contains("needs a metavar"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(tools::register_problem(recipe({{"--x", "X", "a"}, {"--x", "X", "b"}})),
                       doctest::Contains("declared twice"), std::invalid_argument);
  tools::ProblemRecipe plain = recipe({{"--x", "X", "help"}});
  plain.build = [](int64_t) { return std::unique_ptr<tools::ProblemInstance>(); };
  CHECK_THROWS_WITH_AS(tools::register_problem(plain), doctest::Contains("one build function"),
                       std::invalid_argument);
  plain.build_with_options = nullptr;
  CHECK_THROWS_WITH_AS(tools::register_problem(plain), doctest::Contains("build_with_options"),
                       std::invalid_argument);
  // build_problem passes declared values and refuses others.
  const tools::ProblemRecipe ok = recipe({{"--x", "X", "help"}});
  CHECK(tools::build_problem(ok, 10, {{"--x", "1"}})->n_elements() == 11);
  CHECK_THROWS_WITH_AS(tools::build_problem(ok, 10, {{"--y", "1"}}),
                       doctest::Contains("takes no option --y"), std::invalid_argument);
  CHECK_THROWS_AS(tools::build_problem(tools::find_problem("spring"), 10, {{"--x", "1"}}),
                  std::invalid_argument);
}

TEST_CASE("spring-grid: every candidate of every mode runs through the Assembler and checks") {
  tools::register_builtin_problems();
  auto grid = tools::find_problem("spring-grid").build(200);
  CHECK(grid->summary().find("vertices") != std::string::npos);
  const auto candidates = grid->candidates(Mode::Gradient, tools::Target::Cpu);
  std::set<std::string> strategies;
  for (const auto& c : candidates) strategies.insert(c.config.at("element_strategy"));
  CHECK(strategies == std::set<std::string>{"element-gather", "element-scatter", "node-gather"});
  std::set<std::string> matrix_strategies;
  for (const auto& c : grid->candidates(Mode::Hessian, tools::Target::Cpu))
    matrix_strategies.insert(c.config.at("element_strategy"));
  CHECK(matrix_strategies.count("staged-node-gather") == 1);
  CHECK(grid->heuristic(Mode::Hessian, tools::Target::Cpu).config.at("element_strategy") ==
        "staged-node-gather");
  CHECK(grid->heuristic(Mode::Hvp, tools::Target::Cpu).config.at("element_strategy") ==
        "node-gather");
  for (Mode mode : {Mode::Hessian, Mode::Gradient, Mode::Hvp, Mode::Value}) {
    for (const auto& c : grid->candidates(mode, tools::Target::Cpu)) {
      CAPTURE(mode_name(mode));
      CAPTURE(c.label);
      auto run = grid->prepare(mode, c.config, tools::Target::Cpu);
      run->run();
      CHECK(!run->stats().kernels.empty());
      for (const auto& r : run->check(20)) {
        CAPTURE(r.what);
        CHECK(r.checked > 0);
        CHECK(r.ok());
      }
    }
  }
  CHECK_THROWS_WITH_AS(
      grid->prepare(Mode::Gradient, {{"element_strategy", "atomic"}}, tools::Target::Cpu),
      doctest::Contains("element_strategy"), std::invalid_argument);
}
