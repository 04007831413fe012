#include "jit/lowering.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>

#include "dsl/sha256.h"
#include "jit/driver_text.h"
#include "jit/element_driver.h"
#include "jit/emit_element.h"
#include "jit/expand_derivatives.h"
#include "jit/logging.h"
#include "jit/lowering_memo.h"
#include "jit/pair_exps.h"
#include "jit/parallel_for.h"
#include "jit/schedule.h"

namespace dualjit::jit {
namespace {

std::string sanitize(const std::string& s) {
  std::string r;
  for (char c : s) r += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return r;
}

class IrDumper {
 public:
  IrDumper(std::string dir, std::string symbol) : dir_(std::move(dir)), symbol_(std::move(symbol)) {
    if (dir_.empty()) {
      if (const char* env = std::getenv("DUALJIT_DUMP_DIR")) dir_ = env;
    }
    if (!dir_.empty()) std::filesystem::create_directories(dir_);
  }
  // `text` renders the step only when dumps are on: printing a chemistry-sized program costs
  // more than scheduling it.
  template <class Text>
  void operator()(const std::string& step, const Text& text) const {
    if (dir_.empty()) return;
    const auto path = std::filesystem::path(dir_) / (symbol_ + "." + step);
    std::ofstream(path) << text();
    spdlog::debug("dualjit: dumped {}", path.string());
  }

 private:
  std::string dir_, symbol_;
};

// Statements per non-inlined piece of a chunk's element function (0: whole). Pieces pass
// their values through a local-memory scratch array, which full optimisation cannot
// promote to registers: under CompileEffort::Full only chunks too big for NVVM whole are split.
size_t automatic_piece(size_t statements, CompileEffort effort) {
  const size_t piece = effort == CompileEffort::Full ? kFullEffortPiece : kSplitPiece;
  const size_t above = effort == CompileEffort::Full ? kFullEffortPiece : kLargeChunk;
  return statements > above ? piece : 0;
}

// How many launches lower_launches makes (LoweringOptions::launches) of a kernel whose chunks
// hold `statements` each.
int launch_count(const LoweringOptions& o, const LoweredKernel& whole,
                 const std::vector<size_t>& statements) {
  if (o.launches < 0) {
    throw std::invalid_argument("kernel '" + whole.kernel_name + "': launches " +
                                std::to_string(o.launches) + " (0: automatic, N >= 1: at most N)");
  }
  const int chunks = static_cast<int>(whole.plan.chunks.size());
  if ((whole.plan.rows == 0 && whole.tape_size == 0) || chunks < 2 || !o.chunks.all()) return 1;
  if (o.launches > 0) return std::min(o.launches, chunks);
  size_t total = 0;
  for (size_t s : statements) total += s;
  if (total <= kLargeKernel) return 1;
  if (whole.tape_size > 0 && o.compile_effort == CompileEffort::Full) {
    // The tapes' launch, the largest, bounds the compile; each further launch reads again the
    // tapes its rows need, so the rows take as few launches as keep each no larger than it
    // (GRI-3.0 in rows of 2 on an H200: 3-4 launches 11% faster than 16; bench/RESULTS.md).
    const size_t tape = std::max<size_t>(statements.front(), 1);
    const size_t rows = (total - statements.front() + tape - 1) / tape;
    return std::min({1 + static_cast<int>(std::max<size_t>(rows, 1)), kMaxLaunches, chunks});
  }
  return std::min(kMaxLaunches, chunks);
}

// `n` contiguous, non-empty ranges of the chunks with about equal statement counts.
std::vector<ChunkRange> balanced_ranges(const std::vector<size_t>& statements, int n) {
  const int chunks = static_cast<int>(statements.size());
  size_t total = 0;
  for (size_t s : statements) total += s;
  std::vector<ChunkRange> out;
  int first = 0;
  size_t done = 0;
  for (int u = 1; u <= n; ++u) {
    // A range ends once it reaches its share of the total, leaving a chunk for every later one.
    const size_t target = total * static_cast<size_t>(u) / static_cast<size_t>(n);
    int last = first + 1;
    done += statements[first];
    while (last < chunks && chunks - last > n - u &&
           (u == n || done + statements[last] / 2 < target)) {
      done += statements[last++];
    }
    out.push_back({first, last});
    first = last;
  }
  return out;
}

}  // namespace

bool outlines_specials(size_t statements) {
  static const bool inline_all = [] {
    const char* env = std::getenv("DUALJIT_INLINE_SPECIALS");
    return env && std::string_view(env) == "1";
  }();
  return !inline_all && statements > kOutlineSpecials;
}

std::string LaunchLayout::describe() const {
  return std::to_string(threads_per_element) + "x" + std::to_string(elements_per_block) +
         (min_blocks > 0 ? "m" + std::to_string(min_blocks) : "");
}

std::string print_program(const ScalarProgram& p) {
  std::ostringstream os;
  const Graph& g = *p.graph;
  const bool scheduled = !p.order.empty();
  std::vector<NodeId> ids = p.order;
  if (!scheduled) {
    for (size_t i = 0; i < g.size(); ++i) ids.push_back(static_cast<NodeId>(i));
  }
  for (NodeId id : ids) {
    const Node& n = g.node(id);
    os << '%' << id << " = " << op_name(n.op);
    if (n.op == Op::Const) {
      os << ' ' << c_literal(n.value);
    } else if (is_leaf(n.op)) {
      os << ' ' << n.slot << '[' << n.index << ']';
    } else {
      for (int k = 0; k < op_arity(n.op); ++k) os << " %" << n.operand(k);
    }
    os << '\n';
  }
  for (const Store& s : p.stores) {
    os << (s.target == Target::Value    ? "val"
           : s.target == Target::First  ? "d1"
           : s.target == Target::Second ? "d2"
                                        : "tp")
       << '[' << s.index << "] = %" << s.node << '\n';
  }
  return os.str();
}

const std::string& LoweredKernel::cuda_source_sha256() const {
  std::call_once(digests->cuda_once, [&] { digests->cuda = sha256_hex(cuda_source); });
  return digests->cuda;
}

const std::string& LoweredKernel::host_source_sha256() const {
  std::call_once(digests->host_once, [&] { digests->host = sha256_hex(host_source); });
  return digests->host;
}

const Driver& LoweredKernel::driver() const {
  return options.driver ? *options.driver : *element_local_driver();
}

std::string LoweredKernel::report() const {
  std::ostringstream os;
  os << "kernel " << kernel_name << " -> " << symbol << '\n'
     << "  mode " << mode_name(plan.mode) << ", W=" << plan.width << ", chunks "
     << plan.chunks.size() << (plan.rows > 0 ? ", rows " + std::to_string(plan.rows) : "")
     << ", layout " << options.layout.describe() << ", " << schedule_name(*options.schedule) << ", "
     << (options.prune ? "pruned" : "unpruned") << '\n';
  for (size_t c = 0; c < chunk_ops.size(); ++c) {
    os << "  chunk " << c << ": " << format(chunk_ops[c]) << ", max live " << chunk_live[c] << '\n';
  }
  os << "  total per element: " << format(ops) << '\n'
     << "  statements " << statements << ", max live values (one chunk): " << max_live << '\n';
  return os.str();
}

namespace {

// A lowered kernel before its chunks: plan (adapted by the driver, restricted to
// options.chunks), symbol, binding, argument table, launch policy.
struct Prepared {
  LoweredKernel out;
  DriverSpec spec;
  std::shared_ptr<const TapePattern> tapes;  // kept tapes; null: none
  std::vector<Prepared> companions;          // LoweringOptions::companions, their chunks only
};

// The kernel's sizes as its driver sees them: its input slots, its counts, and the derivative
// sizes of out.plan's mode (dense).
void set_sizes(const Kernel& kernel, LoweredKernel& out, DriverSpec& spec) {
  for (const Slot& s : kernel.slots_of(SlotKind::Input)) {
    spec.slot_size.push_back(s.size);
    spec.slot_offset.push_back(s.offset);
  }
  out.slot_size = spec.slot_size;
  spec.n_inputs = kernel.n_inputs();
  spec.n_params = kernel.n_params();
  spec.n_uniforms = kernel.n_uniforms();
  spec.n_outputs = kernel.n_outputs();
  spec.first_size = out.first_size =
      first_size(out.plan.mode, out.plan.n_inputs, out.plan.n_outputs);
  spec.second_size = out.second_size = second_size(out.plan.mode, out.plan.n_inputs);
  spec.hvp = out.plan.mode == Mode::Hvp;
}

// A companion kernel (LoweringOptions::companions) of the kernel lowered under `parent`: its
// plan in the same mode, whole (one chunk of every direction), its slots bound to vertex 0 and
// its chunk functions named `symbol`_c<c>. Only its chunks are emitted: the parent's driver
// loads its inputs and uses its results.
Prepared prepare_companion(const Kernel& kernel, const LoweringOptions& parent,
                           const std::string& symbol) {
  Prepared pr;
  LoweredKernel& out = pr.out;
  out.kernel_name = kernel.name();
  out.options.mode = parent.mode;
  out.options.prune = parent.prune;
  out.options.single_tangents = parent.single_tangents;
  out.options.compile_effort = parent.compile_effort;
  out.plan = plan_derivatives(kernel, parent.mode, 0, 0);
  out.options.schedule = kernel.graph().size() > kLargeChunk ? ScheduleKind::LeastLive
                                                             : default_schedule(out.plan.width);
  out.symbol = symbol;
  out.label = "kernel '" + kernel.name() + "' (" + symbol + ")";
  DriverSpec& spec = pr.spec;
  spec.symbol = symbol;
  spec.n_chunks = static_cast<int>(out.plan.chunks.size());
  set_sizes(kernel, out, spec);
  spec.input_vertex.assign(spec.slot_size.size(), 0);
  out.input_vertex = spec.input_vertex;
  spec.layout = parent.layout;
  return pr;
}

// Whether a kernel lowered under `o` keeps its tapes (dsl/expr.h tape()): first-order
// Jacobians of the element-local driver, one thread an element, whose chunks run in order on it
// (the tape chunk first) or in launches run in order.
bool keeps_tapes(const LoweringOptions& o) {
  return o.mode == Mode::Jacobian && (!o.driver || o.driver == element_local_driver()) && o.prune &&
         o.layout.threads_per_element == 1;
}

// `pattern`: the kernel's Jacobian pattern when known (the launches of one kernel share it;
// a chemistry kernel's takes a large share of its lowering); `tapes` likewise.
Prepared prepare(const Kernel& kernel, const LoweringOptions& options,
                 const JacobianPattern* pattern = nullptr,
                 std::shared_ptr<const TapePattern> tapes = nullptr) {
  const LaunchLayout& layout = options.layout;
  if (layout.threads_per_element < 1 || layout.elements_per_block < 32 ||
      layout.elements_per_block % 32 != 0) {
    throw std::invalid_argument("kernel '" + kernel.name() + "': layout " + layout.describe() +
                                " needs threads per element >= 1 and elements per block a "
                                "positive multiple of 32");
  }
  Prepared pr;
  LoweredKernel& out = pr.out;
  out.kernel_name = kernel.name();
  out.options = options;
  out.plan = plan_derivatives(kernel, options.mode, options.width, options.rows);
  if (out.plan.rows > 0 && options.driver) {
    throw std::invalid_argument("kernel '" + kernel.name() + "': row groups (" +
                                std::to_string(options.rows) +
                                " outputs per chunk) need the element-local driver, not '" +
                                options.driver->suffix() + "'");
  }
  const Driver& driver = options.driver ? *options.driver : *element_local_driver();
  driver.adapt(out.plan);
  if (keeps_tapes(options)) {
    if (!tapes) tapes = std::make_shared<const TapePattern>(tape_pattern(kernel));
    if (!tapes->empty()) {
      pr.tapes = std::move(tapes);
      add_tape_chunk(out.plan);
      out.tape_size = pr.spec.tape_size = pr.tapes->size;
    }
  }
  const std::vector<Chunk> all_chunks = out.plan.chunks;  // a staged kernel's launches agree
  if (!options.chunks.all()) {
    const int n = static_cast<int>(out.plan.chunks.size());
    const ChunkRange r = options.chunks;
    if (options.driver || r.first < 0 || r.first >= r.last || r.last > n) {
      throw std::invalid_argument(
          "kernel '" + kernel.name() + "': chunks [" + std::to_string(r.first) + ", " +
          std::to_string(r.last) + ") of a plan with " + std::to_string(n) +
          (options.driver ? ", under the driver '" + options.driver->suffix() + "'" : "") +
          " (a range of its chunks, under the element-local driver)");
    }
    out.plan.chunks.assign(out.plan.chunks.begin() + r.first, out.plan.chunks.begin() + r.last);
  }
  out.writes_tape = pr.tapes && out.plan.chunks.front().tape;
  const DerivativePlan& plan = out.plan;
  if (!out.options.schedule) {
    out.options.schedule = kernel.graph().size() > kLargeChunk ? ScheduleKind::LeastLive
                                                               : default_schedule(plan.width);
  }
  const ScheduleKind sched = *out.options.schedule;
  if (options.sparse_jacobian) {
    if (plan.mode != Mode::Jacobian) {
      throw std::invalid_argument("kernel '" + kernel.name() + "': a sparse Jacobian in mode " +
                                  std::string(mode_name(plan.mode)) + " (Jacobian only)");
    }
    out.first_pattern = pattern ? *pattern : jacobian_pattern(kernel);
  }
  DriverSpec& spec = pr.spec;
  if (options.tiled_values && options.driver && options.driver != element_local_driver()) {
    throw std::invalid_argument("kernel '" + kernel.name() +
                                "': tiled values need the element-local driver, not '" +
                                options.driver->suffix() + "'");
  }
  spec.tiled_values = options.tiled_values;
  if (options.first_stores != FirstStores::Direct && options.driver &&
      options.driver != element_local_driver()) {
    throw std::invalid_argument("kernel '" + kernel.name() + "': first derivatives " +
                                (options.first_stores == FirstStores::Tiled ? "tiled" : "staged") +
                                " need the element-local driver, not '" + options.driver->suffix() +
                                "'");
  }
  if (is_staged(options.first_stores)) {
    // Staged when every chunk's entries are one range and a warp's stage fits; else tiled,
    // which the caller reads in LoweredKernel::options.
    const JacobianPattern* sp = options.sparse_jacobian ? &out.first_pattern : nullptr;
    const auto all = stage_ranges(plan, all_chunks, sp);
    int longest = 0;
    if (all) {
      for (const StageRange& r : *all) longest = std::max(longest, r.len);
    }
    if (all && longest > 0 && stage_bytes(32, longest) <= kMaxStageBytesPerWarp) {
      const int first = options.chunks.all() ? 0 : options.chunks.first;
      spec.stage.assign(all->begin() + first, all->begin() + first + plan.chunks.size());
      for (const StageRange& r : spec.stage)
        spec.stage_entries = std::max(spec.stage_entries, r.len);
      spec.stage_entries = std::max(spec.stage_entries, 1);
    } else {
      out.options.first_stores = FirstStores::Tiled;
    }
  }
  spec.first_stores = out.options.first_stores;
  // Side by side only where it is safe and pays: chunks that read tapes no chunk of the launch
  // writes (the tape chunk runs in a launch before them).
  spec.layout = layout;
  spec.layout.side_by_side = layout.side_by_side && pr.tapes && !out.writes_tape &&
                             plan.chunks.size() > 1 && layout.threads_per_element == 1;
  out.symbol = "dj_" + sanitize(kernel.name()) + "_" + std::string(mode_name(plan.mode)) + "_w" +
               std::to_string(plan.width) + "_t" + std::to_string(layout.threads_per_element) +
               (out.plan.rows > 0 ? "_r" + std::to_string(out.plan.rows) : "") + "_b" +
               std::to_string(layout.elements_per_block) +
               (layout.min_blocks > 0 ? "_m" + std::to_string(layout.min_blocks) : "") +
               (spec.layout.side_by_side ? "_sb" : "") + (options.prune ? "" : "_np") +
               (sched == ScheduleKind::NodeMajor   ? "_nm"
                : sched == ScheduleKind::LeastLive ? "_ll"
                                                   : "_df") +
               (options.single_tangents && plan.mode != Mode::Value ? "_st" : "") +
               (options.sparse_jacobian ? "_sp" : "") + (pr.tapes ? "_tp" : "") +
               (options.tiled_params.tiled() ? "_pt" : "") + (options.tiled_values ? "_tv" : "") +
               (spec.first_stores == FirstStores::Tiled                  ? "_tf"
                : spec.first_stores == FirstStores::Staged               ? "_sf"
                : spec.first_stores == FirstStores::StagedComponentMajor ? "_sfc"
                                                                         : "") +
               driver.suffix() +
               (options.chunks.all() ? ""
                                     : "_k" + std::to_string(options.chunks.first) + "_" +
                                           std::to_string(options.chunks.last));
  out.label = "kernel '" + kernel.name() + "' (" + out.symbol + ")";
  out.cuda_entry = out.symbol;
  out.host_entry = out.symbol + "_host";

  // Slots and their binding to element vertices.
  spec.symbol = out.symbol;
  spec.n_chunks = static_cast<int>(plan.chunks.size());
  set_sizes(kernel, out, spec);
  if (const TiledParams& tp = options.tiled_params; tp.tiled()) {
    if (!options.companions.empty()) {  // their chunks read params element-major
      throw std::invalid_argument(out.label + ": tiled params with companion kernels");
    }
    if (tp.at.size() != static_cast<size_t>(spec.n_params)) {
      throw std::invalid_argument(out.label + ": tiled params at " + std::to_string(tp.at.size()) +
                                  " slots for " + std::to_string(spec.n_params) + " params");
    }
    for (size_t i = 0; i < tp.at.size(); ++i) {
      if (tp.at[i] < 0 || tp.at[i] >= tp.slots) {
        throw std::invalid_argument(out.label + ": param " + std::to_string(i) + " at slot " +
                                    std::to_string(tp.at[i]) + " of a tile row of " +
                                    std::to_string(tp.slots));
      }
    }
    spec.params = tp;
  }
  out.input_vertex = options.input_vertex;
  if (out.input_vertex.empty()) {
    for (size_t s = 0; s < spec.slot_size.size(); ++s)
      out.input_vertex.push_back(static_cast<int>(s));
  }
  if (out.input_vertex.size() != spec.slot_size.size()) {
    throw std::invalid_argument("kernel '" + kernel.name() + "': binding names " +
                                std::to_string(out.input_vertex.size()) + " vertices for " +
                                std::to_string(spec.slot_size.size()) + " input slots");
  }
  for (int v : out.input_vertex) {
    if (v < 0)
      throw std::invalid_argument("kernel '" + kernel.name() + "': negative vertex in binding");
  }
  spec.input_vertex = out.input_vertex;
  if (options.sparse_jacobian)
    spec.first_size = out.first_size = static_cast<size_t>(out.first_pattern.nnz());
  if (!options.companions.empty() && (!options.driver || out.plan.rows > 0)) {
    throw std::invalid_argument("kernel '" + kernel.name() +
                                "': companion kernels need a driver that calls them, without "
                                "row groups");
  }
  for (size_t i = 0; i < options.companions.size(); ++i) {
    pr.companions.push_back(
        prepare_companion(*options.companions[i], options, out.symbol + "_n" + std::to_string(i)));
    spec.companions.push_back(pr.companions.back().spec);
  }
  driver.check(spec, plan, kernel.name());
  for (ArgField& f : common_fields(spec)) out.args.add(std::move(f));
  for (ArgField& f : driver.fields(spec)) out.args.add(std::move(f));
  out.args.add(uniform_field(spec));
  out.launch = driver.launch(spec);
  out.compile = driver.compile_flags();
  return pr;
}

// One chunk expanded and scheduled, with what the report keeps of it.
struct ChunkProgram {
  ScalarProgram program;
  ChunkSummary summary;
};

// Every chunk of `pr`'s plan, on parallel threads: each expands into a graph of its own.
std::vector<ChunkProgram> chunk_programs(const Kernel& kernel, const Prepared& pr,
                                         const IrDumper& dump) {
  const LoweredKernel& out = pr.out;
  std::vector<ChunkProgram> chunks(out.plan.chunks.size());
  parallel_for(chunks.size(), [&](size_t c) {
    ChunkProgram& cp = chunks[c];
    const std::string tag = "c" + std::to_string(c);
    cp.program = expand_derivatives(kernel, out.plan, static_cast<int>(c), out.options.prune,
                                    out.options.sparse_jacobian ? &out.first_pattern : nullptr,
                                    pr.tapes.get());
    dump(tag + ".2-expanded.txt", [&] { return print_program(cp.program); });
    schedule(cp.program, *out.options.schedule, out.options.tiled_params.tiled());
    for (NodeId id : cp.program.order) {
      const Op op = cp.program.graph->node(id).op;
      cp.summary.statements += !(op == Op::Const || is_leaf(op));
    }
    // Where the exps are called out of line, two at a time (jit/pair_exps.h).
    if (outlines_specials(cp.summary.statements)) pair_exps(cp.program);
    dump(tag + ".3-scheduled.txt", [&] { return print_program(cp.program); });
    cp.summary.ops = count_ops(cp.program);
    cp.summary.live = max_live_values(cp.program);
  });
  return chunks;
}

// Chunk c's element function under pr's symbol (c counts from the first of pr's chunks).
// `table_bytes`: its share of the module's constant tables (0: literals).
std::string chunk_text(const Prepared& pr, const ChunkProgram& cp, size_t c,
                       size_t table_bytes = 0) {
  const LoweredKernel& out = pr.out;
  size_t piece = out.options.max_statements_per_function;
  if (piece == 0) piece = automatic_piece(cp.summary.statements, out.options.compile_effort);
  ElementIndex first;
  if (pr.spec.first_stores == FirstStores::Tiled) first.stride = kFirstTile;
  if (pr.spec.tiled_values) first.value_stride = kFirstTile;
  first.param_at = pr.spec.params.at;
  if (is_staged(pr.spec.first_stores)) {
    first.staged = true;
    first.base = pr.spec.stage[c].lo;
  }
  return emit_element_function(cp.program, out.symbol + "_c" + std::to_string(c), piece,
                               out.options.single_tangents, /*own_function=*/out.plan.rows > 0,
                               outlines_specials(cp.summary.statements), first,
                               pr.spec.tape_size > 0, table_bytes);
}

// Whether chunk c of `plan` reads its fp64 constants from tables (jit/constant_tables.h): the
// chunk that computes a kernel's tapes, where it calls its specials out of line. GRI-3.0's
// tapes' launch waited a quarter of its time on instruction fetch; the tables take a fifth of its
// instructions and 1.6% of the Jacobian's time. The rates kernel, waiting on its latencies, was no
// faster with them (bench/RESULTS.md).
bool reads_constant_tables(const DerivativePlan& plan, size_t c, size_t statements) {
  return plan.chunks[c].tape && outlines_specials(statements);
}

// Each chunk's share of its module's constant tables: the chunks that read them split
// kConstantTableBytes; the others keep literals.
std::vector<size_t> table_shares(const DerivativePlan& plan, std::span<const ChunkSummary> chunks,
                                 std::span<const ChunkRange> ranges) {
  std::vector<size_t> share(chunks.size(), 0);
  for (const ChunkRange& r : ranges) {
    size_t readers = 0;
    for (int c = r.first; c < r.last; ++c)
      readers += reads_constant_tables(plan, c, chunks[c].statements);
    for (int c = r.first; c < r.last; ++c) {
      if (reads_constant_tables(plan, c, chunks[c].statements))
        share[c] = kConstantTableBytes / readers;
    }
  }
  return share;
}

// The kernel from its prepared part, its chunks (those of pr's plan) and their element
// functions, in order.
// `companion_texts`: the companions' element functions; `companions_outline`: whether one of
// them calls the outlined specials.
LoweredKernel finish(Prepared pr, std::span<const ChunkSummary> chunks,
                     std::span<const std::string> texts,
                     std::span<const std::string> companion_texts = {},
                     bool companions_outline = false) {
  LoweredKernel& out = pr.out;
  const DriverSpec& spec = pr.spec;
  const Driver& driver = out.driver();
  for (size_t c = 0; c < texts.size(); ++c) {
    out.chunk_ops.push_back(chunks[c].ops);
    out.ops += chunks[c].ops;
    out.chunk_live.push_back(chunks[c].live);
    out.max_live = std::max(out.max_live, chunks[c].live);
    out.chunk_statements.push_back(chunks[c].statements);
    out.statements += chunks[c].statements;
  }
  // The texts run to megabytes: each is built once, in place.
  const auto joined = [](std::initializer_list<std::string_view> parts) {
    size_t bytes = 0;
    for (std::string_view p : parts) bytes += p.size();
    std::string s;
    s.reserve(bytes);
    for (std::string_view p : parts) s += p;
    return s;
  };
  const std::string args_struct = out.args.struct_text(spec.args_type());
  const std::string functions = driver.functions(spec, out.plan);
  {
    size_t bytes = args_struct.size() + 1 + functions.size();
    for (const std::string& t : texts) bytes += t.size() + 1;
    for (const std::string& t : companion_texts) bytes += t.size() + 1;
    out.element_source.reserve(bytes);
    out.element_source += args_struct;
    out.element_source += '\n';
    for (std::span<const std::string> list : {texts, companion_texts}) {
      for (const std::string& t : list) {
        out.element_source += t;
        out.element_source += '\n';
      }
    }
    out.element_source += functions;
  }
  const IrDumper dump(out.options.dump_dir, out.symbol);
  dump("4-element.txt", [&] { return out.element_source; });
  // The outlined specials, where a chunk calls them (chunk_text).
  const bool outlined =
      companions_outline || std::any_of(chunks.begin(), chunks.end(), [](const ChunkSummary& c) {
        return outlines_specials(c.statements);
      });
  out.cuda_source = joined({cuda_prelude(), outlined ? cuda_outlined_specials() : "", "\n",
                            out.element_source, "\n", driver.cuda_entry(spec, out.plan)});
  if (driver.runs_on_host()) {
    out.host_source = joined({host_prelude(), outlined ? host_outlined_specials() : "", "\n",
                              out.element_source, "\n", driver.host_entry(spec, out.plan)});
  }
  dump("5-cuda.cu", [&] { return out.cuda_source; });
  dump("5-host.cpp", [&] { return out.host_source; });
  dump("6-report.txt", [&] { return out.report(); });
  return std::move(out);
}

}  // namespace

namespace {

// lower (split = false: one kernel) and lower_launches (split: as launch_count says). Each chunk
// is expanded and scheduled once, then emitted into the launch that holds it.
std::vector<LoweredKernel> lower_parts(const Kernel& kernel, const LoweringOptions& options,
                                       bool split) {
  init_logging_from_env();
  const auto t0 = std::chrono::steady_clock::now();
  Prepared whole = prepare(kernel, options);
  const std::string symbol = whole.out.symbol;
  const IrDumper dump(options.dump_dir, symbol);
  dump("0-kernel.txt", [&] { return kernel.dump(); });
  dump("1-plan.txt", [&] { return describe(whole.out.plan); });
  // The chunks' passes, or what an earlier process kept of them (jit/lowering_memo.h).
  const std::string memo_key =
      lowering_memo_key(kernel, whole.out.options, whole.out.plan, symbol, split);
  LoweredChunks lowered;
  bool from_memo = false;
  if (std::optional<LoweredChunks> hit = load_lowered_chunks(memo_key);
      hit && hit->texts.size() == whole.out.plan.chunks.size()) {
    lowered = std::move(*hit);
    from_memo = true;
  }
  std::vector<ChunkProgram> chunks;
  if (!from_memo) {
    chunks = chunk_programs(kernel, whole, dump);
    for (const ChunkProgram& cp : chunks) lowered.summaries.push_back(cp.summary);
  }
  std::vector<size_t> statements;
  size_t total = 0;
  for (const ChunkSummary& cs : lowered.summaries) {
    statements.push_back(cs.statements);
    total += cs.statements;
  }
  const int n = split ? launch_count(options, whole.out, statements) : 1;
  std::vector<ChunkRange> ranges;
  if (n <= 1) {
    ranges.push_back({0, static_cast<int>(statements.size())});
  } else if (whole.tapes) {  // the tape chunk alone, first: the others read what it writes
    ranges.push_back({0, 1});
    const std::vector<size_t> rest(statements.begin() + 1, statements.end());
    for (const ChunkRange& r : balanced_ranges(rest, n - 1))
      ranges.push_back({r.first + 1, r.last + 1});
  } else {
    ranges = balanced_ranges(statements, n);
  }
  // The chunks' table shares, where they are emitted (the memo holds their texts otherwise).
  const std::vector<size_t> shares =
      from_memo ? std::vector<size_t>() : table_shares(whole.out.plan, lowered.summaries, ranges);
  std::vector<Prepared> parts;
  if (n <= 1) {
    parts.push_back(std::move(whole));
  } else {
    for (const ChunkRange& r : ranges) {
      LoweringOptions o = options;
      o.chunks = r;
      parts.push_back(prepare(kernel, o, &whole.out.first_pattern, whole.tapes));
    }
  }
  if (!from_memo) {
    std::vector<std::string>& texts = lowered.texts;
    texts.resize(chunks.size());
    parallel_for(chunks.size(), [&](size_t c) {
      size_t u = 0;
      while (static_cast<int>(c) >= ranges[u].last) ++u;
      texts[c] =
          chunk_text(parts[u], chunks[c], c - static_cast<size_t>(ranges[u].first), shares[c]);
    });
    store_lowered_chunks(memo_key, kernel.name(), symbol, lowered);
  }
  const std::vector<ChunkSummary>& summaries = lowered.summaries;
  const std::vector<std::string>& texts = lowered.texts;
  // The companions' chunks (one launch only: prepare refuses them with row groups).
  std::vector<std::string> companion_texts;
  bool companions_outline = false;
  for (size_t i = 0; i < parts.front().companions.size(); ++i) {
    const Prepared& cp = parts.front().companions[i];
    const IrDumper companion_dump(options.dump_dir, cp.out.symbol);
    const std::vector<ChunkProgram> programs =
        chunk_programs(*options.companions[i], cp, companion_dump);
    for (size_t c = 0; c < programs.size(); ++c) {
      companion_texts.push_back(chunk_text(cp, programs[c], c));
      companions_outline = companions_outline || outlines_specials(programs[c].summary.statements);
    }
  }
  std::vector<LoweredKernel> out;
  for (size_t u = 0; u < parts.size(); ++u) {
    const size_t first = static_cast<size_t>(ranges[u].first);
    const size_t count = static_cast<size_t>(ranges[u].last - ranges[u].first);
    out.push_back(finish(std::move(parts[u]), std::span(summaries).subspan(first, count),
                         std::span(texts).subspan(first, count), companion_texts,
                         companions_outline));
  }
  spdlog::debug("dualjit: lowered {} in {:.3f} s ({} chunks, {} statements, {} launches{})", symbol,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                summaries.size(), total, out.size(),
                from_memo ? "; chunks from the lowering memo" : "");
  return out;
}

}  // namespace

LoweredKernel lower(const Kernel& kernel, const LoweringOptions& options) {
  return std::move(lower_parts(kernel, options, false).front());
}

std::vector<LoweredKernel> lower_launches(const Kernel& kernel, const LoweringOptions& options) {
  return lower_parts(kernel, options, true);
}

}  // namespace dualjit::jit
