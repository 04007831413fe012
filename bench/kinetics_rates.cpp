// Chemical kinetics per cell (examples/kinetics/reactor_cells.h; issue 16's benchmark): for a
// mechanism (GRI-3.0 by default) and cell counts 1e4, 1e5, 1e6, random constant-pressure states
// (T uniform in 1000-2500 K, Y_k uniform positive and normalised, a fixed seed; p uniform, 10 atm
// by default): the production rates (run_residual: wdot_k then the heat release rate q, ns + 1
// per cell) and the dense per-cell Jacobian d(wdot, q)/d(T, Y) ((ns + 1)^2 per cell,
// run_element_blocks: J cell-major, Jcol cell-major with column-major blocks, Jc
// component-major), timed on the GPU through assembly::Assembler with its default strategies,
// state already on the device, CUDA events after warm-up, medians. Floors:
//   bytes: the state read once and the outputs written once, at the device-to-device copy
//     bandwidth measured in the same run (energy_bench.h);
//   arithmetic (rates): the rates kernel's flops per cell (KernelInfo::flops, jit/op_counts.h: an
//     add, mul, div, sqrt or special function is one flop each, so a fusable multiply-add is two)
//     over the GPU's fp64 peak counted the same way (an FMA is two flops). The peak is
//     SMs x 64 fp64 FMA units x 2 x 1.98 GHz for compute capability 8.0 and 9.0 (A100, H100,
//     H200; 132 SMs: 33.5 TFLOP/s, NVIDIA's "FP64 34 TFLOPS" for H100 SXM; its 67 TFLOP/s is
//     the fp64 Tensor Core rate, which scalar code cannot use), else --fp64-peak TFLOPS. A lower
//     bound: an exp or log in fp64 costs tens of instructions and counts one, an unfused add or
//     multiply takes a whole FMA slot and counts one ("rates per cell" prints the kinds).
// Compile: each kernel's symbol, flops, registers, spills, whether NVRTC built it (cold) or the
// disk cache served it (warm), and the wall time of the call that brought it in (lowering,
// compile or load, structure), at the smallest cell count: that is a user's start-up cost, and
// the cache is what removes it from later runs.
//
// Checksums, printed by the JAX peer (bench/peers/kinetics_jax.py) too: sum wdot, sum |wdot|,
// sum q, sum |J| (over all cells and entries).
//
//   kinetics_rates [--mechanism FILE[:PHASE]] [--write DIR] [--cpu] [--reps N] [--seed S]
//                  [--pressure-atm P] [--fp64-peak TFLOPS] [--width W]
//                  [--rows R] [--launches L] [--threads-per-cell T] [--cells-per-block E]
//                  [--min-blocks M] [--rates-cells-per-block E] [--rates-min-blocks M]
//                  [--side-by-side 0|1] [--tape-columns 0|1] [--cell-run-bytes B]
//                  [--cell-launch-groups G] [--cell-min-blocks M] [--columns-min-blocks M]
//                  [--column-group-slots S] [--component-group-slots S]
//                  [--tapes-min-blocks M] [--effort auto|full]
//                  [--outputs all|rates|sparse] [--form FORM] [--columns-form FORM]
//                  [--batch N] [CELLS ...]
//     (default gri30.yaml, 10000 100000 1000000; with --cpu, 1000)
// --write DIR writes DIR/kinetics_<mechanism>.json (the mechanism, as the peer reads it: no
// Cantera needed) and DIR/kinetics_<mechanism>_<CELLS>.bin (arrays file, energy_bench.h:
// "states" CELLS x (ns + 1), "pressure" in Pa). --cpu runs the CPU backend (no GPU needed):
// checksums, and wall-clock medians that are no benchmark. --outputs rates: the rates alone (a
// 1,268-species mechanism's dense Jacobian is 12.9 MB per cell); the Jacobian fields print 0.
// --outputs sparse: the states as (T, C) and the Jacobian without its structural zeros
// (ReactorCells::sparse_jacobian, cell-major; J_ms, floor_J_ms and J_abs_sum are its, nnz per
// cell printed), what a 1,268-species mechanism needs and no peer computes.
// --batch N (GPU, with --outputs sparse): the cells N at a time, as a caller does whose
// Jacobians do not fit the device at once (n-hexane's, 2.24 MB a cell: 224 GB at 1e5 cells):
// ReactorCells of N cells, every cell's state on the device, and per batch its states copied
// into the assembler's state buffer, then its rates or Jacobian. w_ms and J_ms time the whole
// loop; the checksums and floors cover every cell. CELLS must be multiples of N.
// --launches L: the Jacobian in row groups as at most L launches that compile in parallel
// (jit/lowering.h lower_launches; 0 automatic, 1 whole).
// --min-blocks M: blocks per SM ptxas must fit for the Jacobian's kernels (LaunchLayout::
// min_blocks; default 0, ptxas free).
// --tape-columns 0|1: the dense Jacobians (J and Jc) by the tape columns' launches, each tape
// slot read once a cell (AssemblerOptions::element_tape_columns; default 1), or by the row groups.
// --cell-run-bytes B, --cell-launch-groups G, --cell-min-blocks M, --columns-min-blocks M,
// --column-group-slots S, --component-group-slots S, --tapes-min-blocks M, --launch-groups G,
// --tile-window W, --aux-parts A: the tape columns' settings (assembly::TapeColumnsSettings
// cell_run_bytes, cell_launch_groups, cell_min_blocks, min_blocks, group_slots,
// component_group_slots, tapes_min_blocks, launch_groups, tile_window, aux_parts; defaults
// 28672, 3, 4, 3, 200, 175, 3, 2, 0, 4):
// Jcol's groups' staged runs, its launches' groups and blocks a multiprocessor, the other
// columns' launches' blocks, a group's staged values at most (Jc's groups': the last), the
// tapes' launch's and rest kernel's blocks where --min-blocks leaves them free, the other
// columns' launches' groups and their grid's windows of tiles, the aux launch's warps a tile.
// --side-by-side 0|1: the Jacobian's launches that read tapes run their chunks side by side,
// a block each, or one after another on each thread (LaunchLayout::side_by_side; default 1).
// --rates-cells-per-block E, --rates-min-blocks M: the rates kernel's layout (FusedOptions::
// layout; M blocks per SM cap its registers at 65536 / (E M)), where --cells-per-block and
// --min-blocks set the Jacobian's.
// --form values|derivatives|columns: the rate laws' form in the rates kernel (examples/kinetics/
// rate_laws.h RateLawForm; default values; derivatives: the Jacobian's form, so that one
// kernel serves both). --columns-form: the form in the kernel the tape columns differentiate
// (ReactorCellsOptions::columns_form; default columns; derivatives: the row groups' kernel).
// The Jacobian's kernel is always in the derivatives' form; "rates per cell"
// and w_flops count the rates kernel that runs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/assembly/assembler.h"
#include "bench/energy_bench.h"
#include "bench/kinetics_states.h"
#include "bench/wall_clock.h"
#include "examples/kinetics/rate_constants.h"
#include "examples/kinetics/reactor_cells.h"
#include "jit/lowering.h"

using namespace dualjit;
using bench::seconds_since;
using kinetics::Mechanism;
using kinetics::Reaction;
using kinetics::ReactionType;

namespace {

const char* type_name(ReactionType t) {
  switch (t) {
    case ReactionType::elementary:
      return "elementary";
    case ReactionType::three_body:
      return "three-body";
    case ReactionType::falloff:
      return "falloff";
    case ReactionType::chemically_activated:
      return "chemically-activated";
    case ReactionType::plog:
      return "pressure-dependent-Arrhenius";
    case ReactionType::chebyshev:
      return "Chebyshev";
  }
  return "?";
}

const char* form_name(kinetics::FalloffForm f) {
  switch (f) {
    case kinetics::FalloffForm::lindemann:
      return "lindemann";
    case kinetics::FalloffForm::troe:
      return "troe";
    case kinetics::FalloffForm::sri:
      return "sri";
  }
  return "?";
}

// Minimal JSON output: numbers round-trip (%.17g), strings escaped.
std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
std::string str(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}
template <class T, class F>
std::string list(const std::vector<T>& v, F item) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + item(v[i]);
  return out + "]";
}
std::string numbers(const std::vector<double>& v) {
  return list(v, num);
}
std::string arrhenius(const kinetics::Arrhenius& a) {
  return numbers({a.A, a.b, a.Ea});
}
// Species index -> coefficient, merged and in species order, as rate_laws.cpp builds them.
std::string powers(const Mechanism& m, const kinetics::Stoichiometry& side, size_t i,
                   const std::map<std::string, double>& overrides = {}) {
  std::map<size_t, double> p;
  for (const auto& [name, nu] : side) p[kinetics::reaction_species(m, name, i)] += nu;
  for (const auto& [name, order] : overrides) p[kinetics::reaction_species(m, name, i)] = order;
  std::vector<std::pair<size_t, double>> v(p.begin(), p.end());
  return list(v, [](const auto& kv) {
    return "[" + std::to_string(kv.first) + ", " + num(kv.second) + "]";
  });
}

// The mechanism as bench/peers/kinetics_jax.py reads it: every array in SI with kmol, as the
// loader converted it (mechanism.h), species and reactions in the mechanism's order.
void write_mechanism_json(const Mechanism& m, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "{\"file\": " << str(m.file) << ", \"phase\": " << str(m.phase)
      << ", \"gas_constant\": " << num(kinetics::kGasConstant)
      << ", \"one_atm\": " << num(kinetics::kOneAtm) << ",\n \"species\": [\n";
  for (size_t k = 0; k < m.species.size(); ++k) {
    const kinetics::Species& s = m.species[k];
    const auto& t = s.thermo;
    out << "  {\"name\": " << str(s.name) << ", \"W\": " << num(s.molecular_weight)
        << ", \"t_mid\": " << num(t.t_mid) << ", \"low\": " << numbers({t.low.begin(), t.low.end()})
        << ", \"high\": " << numbers({t.high.begin(), t.high.end()}) << "}"
        << (k + 1 < m.species.size() ? ",\n" : "\n");
  }
  out << " ],\n \"reactions\": [\n";
  for (size_t i = 0; i < m.reactions.size(); ++i) {
    const Reaction& r = m.reactions[i];
    out << "  {\"index\": " << i << ", \"equation\": " << str(r.equation)
        << ", \"type\": " << str(type_name(r.type))
        << ", \"reversible\": " << (r.reversible ? "true" : "false")
        << ", \"reactants\": " << powers(m, r.reactants, i)
        << ", \"products\": " << powers(m, r.products, i)
        << ", \"orders\": " << powers(m, r.reactants, i, r.orders)
        << ", \"rate\": " << arrhenius(r.rate);
    if (r.type == ReactionType::three_body || r.type == ReactionType::falloff ||
        r.type == ReactionType::chemically_activated) {
      std::vector<std::pair<size_t, double>> eff;
      for (const auto& [name, e] : r.third_body.efficiencies)
        eff.emplace_back(kinetics::reaction_species(m, name, i), e);
      std::sort(eff.begin(), eff.end());
      out << ", \"default_efficiency\": " << num(r.third_body.default_efficiency)
          << ", \"efficiencies\": " << list(eff, [](const auto& kv) {
               return "[" + std::to_string(kv.first) + ", " + num(kv.second) + "]";
             });
    }
    if (r.type == ReactionType::falloff || r.type == ReactionType::chemically_activated) {
      const kinetics::Falloff& f = r.falloff;
      out << ", \"low\": " << arrhenius(r.low) << ", \"high\": " << arrhenius(r.high)
          << ", \"falloff\": {\"form\": " << str(form_name(f.form))
          << ", \"troe\": " << numbers({f.troe_A, f.troe_T3, f.troe_T1, f.troe_T2})
          << ", \"troe_has_t2\": " << (f.troe_has_t2 ? "true" : "false")
          << ", \"sri\": " << numbers({f.sri_A, f.sri_B, f.sri_C, f.sri_D, f.sri_E}) << "}";
    }
    if (r.type == ReactionType::plog) {
      out << ", \"plog\": " << list(r.plog, [](const kinetics::PlogRate& p) {
        return numbers({p.pressure, p.rate.A, p.rate.b, p.rate.Ea});
      });
    }
    if (r.type == ReactionType::chebyshev) {
      const kinetics::Chebyshev& c = r.chebyshev;
      out << ", \"chebyshev\": {\"T\": " << numbers({c.t_min, c.t_max})
          << ", \"P\": " << numbers({c.p_min, c.p_max}) << ", \"data\": " << list(c.data, numbers)
          << "}";
    }
    out << "}" << (i + 1 < m.reactions.size() ? ",\n" : "\n");
  }
  out << " ]}\n";
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Compensated (Neumaier) sums: the checksums are then independent of the order of summation
// to about one rounding, so that cell-major, component-major and the peer's chunked sums agree
// to 1e-15 rather than to the 1e-12 that plain sums of 1e6 terms drift by.
struct Sum {
  double s = 0, c = 0;
  void add(double x) {
    const double t = s + x;
    c += std::abs(s) >= std::abs(x) ? (s - t) + x : (x - t) + s;
    s = t;
  }
  double value() const { return s + c; }
};

struct Checksums {
  double wdot_sum = 0, wdot_abs_sum = 0, q_sum = 0;
};
Checksums rate_checksums(const std::vector<double>& rates, int ns) {
  Sum w, wa, q;
  for (size_t i = 0; i < rates.size(); ++i) {
    if (int(i % (ns + 1)) == ns) {
      q.add(rates[i]);
    } else {
      w.add(rates[i]);
      wa.add(std::abs(rates[i]));
    }
  }
  return {w.value(), wa.value(), q.value()};
}
void add_abs(Sum& sum, const double* v, size_t n) {
  for (size_t i = 0; i < n; ++i) sum.add(std::abs(v[i]));
}
double abs_sum(const double* v, size_t n) {
  Sum s;
  add_abs(s, v, n);
  return s.value();
}

// sum |J| of n doubles on the device, downloaded in pieces (1e6 GRI cells are 23 GB).
double device_abs_sum(const double* p, size_t n) {
  const size_t piece = size_t(1) << 25;
  std::vector<double> host(std::min(n, piece));
  Sum s;
  for (size_t i = 0; i < n; i += piece) {
    const size_t m = std::min(piece, n - i);
    cuda::download(host.data(), p + i, m * sizeof(double));
    add_abs(s, host.data(), m);
  }
  return s.value();
}

// The fp64 peak (flop/s, FMA = 2) of the device: see the header comment.
double fp64_peak(double override_tflops) {
  if (override_tflops > 0) return override_tflops * 1e12;
  const auto& dev = cuda::Context::primary().device();
  if ((dev.cc_major == 8 || dev.cc_major == 9) && dev.cc_minor == 0)
    return dev.multiprocessors * 64.0 * 2.0 * 1.98e9;
  return 0;  // unknown: no arithmetic floor
}

// The kernels of `after` that `before` does not list (the assembler lists its kernels by key,
// not in the order they were built).
std::vector<assembly::KernelInfo> added(const std::vector<assembly::KernelInfo>& after,
                                        const std::vector<assembly::KernelInfo>& before) {
  std::vector<assembly::KernelInfo> out;
  for (const auto& k : after) {
    if (std::none_of(before.begin(), before.end(),
                     [&](const assembly::KernelInfo& b) { return b.symbol == k.symbol; }))
      out.push_back(k);
  }
  return out;
}

void print_kernels(const std::vector<assembly::KernelInfo>& list, const char* output,
                   double first_call_s, const std::string& mech) {
  for (const auto& k : list) {
    std::printf(
        "RESULT kinetics_compile mechanism=%s output=%s kernel=%s flops=%d registers=%d "
        "spill_bytes=%d compiled_now=%d first_call_s=%.3f\n",
        mech.c_str(), output, k.symbol.c_str(), k.flops, k.registers, k.spill_bytes,
        int(k.compiled_now), first_call_s);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> flags = {"--mechanism",
                                          "--seed",
                                          "--pressure-atm",
                                          "--fp64-peak",
                                          "--width",
                                          "--rows",
                                          "--launches",
                                          "--threads-per-cell",
                                          "--cells-per-block",
                                          "--min-blocks",
                                          "--rates-cells-per-block",
                                          "--rates-min-blocks",
                                          "--side-by-side",
                                          "--tape-columns",
                                          "--effort",
                                          "--outputs",
                                          "--form",
                                          "--columns-form",
                                          "--batch",
                                          "--cell-run-bytes",
                                          "--cell-launch-groups",
                                          "--cell-min-blocks",
                                          "--columns-min-blocks",
                                          "--tapes-min-blocks",
                                          "--column-group-slots",
                                          "--component-group-slots",
                                          "--launch-groups",
                                          "--tile-window",
                                          "--aux-parts"};
  bench::Args args = bench::parse_args(argc, argv, {}, flags);
  if (args.sizes.empty())
    args.sizes =
        args.cpu ? std::vector<int64_t>{1000} : std::vector<int64_t>{10000, 100000, 1000000};
  const std::string spec = args.flag("--mechanism", "gri30.yaml");
  const uint64_t seed = std::stoull(args.flag("--seed", "20261124"));
  const double pressure = std::stod(args.flag("--pressure-atm", "10")) * kinetics::kOneAtm;
  const double peak_override = std::stod(args.flag("--fp64-peak", "0"));
  kinetics::RateLawForm rates_form, columns_form;
  try {
    rates_form = kinetics::rate_law_form_named(args.flag("--form", "values"));
    columns_form = kinetics::rate_law_form_named(args.flag("--columns-form", "columns"));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "kinetics_rates: --form, --columns-form: %s\n", e.what());
    return 1;
  }

  const auto t0 = std::chrono::steady_clock::now();
  const Mechanism m = kinetics::load_mechanism(spec);
  const int ns = int(m.species.size()), B = ns + 1;
  std::map<std::string, int> types;
  for (const Reaction& r : m.reactions) {
    std::string t = type_name(r.type);
    if (r.type == ReactionType::falloff || r.type == ReactionType::chemically_activated)
      t += std::string("/") + form_name(r.falloff.form);
    ++types[t];
  }
  // The name in files and RESULT lines: the file's stem.
  const std::string mech = std::filesystem::path(m.file).stem().string();
  std::printf("mechanism %s (%s, phase %s): %d species, %zu reactions;", mech.c_str(),
              m.file.c_str(), m.phase.c_str(), ns, m.reactions.size());
  for (const auto& [t, n] : types) std::printf(" %s %d", t.c_str(), n);
  std::printf("; loaded in %.2f s\n", seconds_since(t0));
  double bw = 0;
  if (!bench::open_device(args.cpu, &bw)) return 1;
  const double peak = args.cpu ? 0.0 : fp64_peak(peak_override);
  if (!args.cpu)
    std::printf("fp64 peak %.1f TFLOP/s (FMA = 2 flops; %s)\n", peak / 1e12,
                peak_override > 0 ? "--fp64-peak" : "SMs x 64 x 2 x 1.98 GHz");
  if (!args.write_dir.empty())
    write_mechanism_json(m, args.write_dir + "/kinetics_" + mech + ".json");

  const std::string outputs = args.flag("--outputs", "all");
  if (outputs != "all" && outputs != "rates" && outputs != "sparse") {
    std::fprintf(stderr, "kinetics_rates: --outputs all|rates|sparse, not '%s'\n", outputs.c_str());
    return 1;
  }
  const bool jacobian = outputs == "all", sparse = outputs == "sparse";
  const int64_t batch_cells = std::stoll(args.flag("--batch", "0"));
  if (batch_cells < 0 || (batch_cells > 0 && (!sparse || args.cpu))) {
    std::fprintf(stderr,
                 "kinetics_rates: --batch N (N > 0) goes with --outputs sparse on the GPU\n");
    return 1;
  }
  kinetics::RateLawOptions rates_law;
  if (sparse) rates_law.state = kinetics::ReactorState::concentrations;
  rates_law.form = rates_form;

  // Operations per cell of the rates kernel that runs, by kind (the KernelInfo flops total hides
  // the specials).
  {
    jit::LoweringOptions lo;
    lo.mode = Mode::Value;
    const auto t1 = std::chrono::steady_clock::now();
    const jit::LoweredKernel l = jit::lower(kinetics::production_rates_kernel(m, rates_law), lo);
    std::printf("rates per cell (%s form): %s (build + lower %.2f s)\n",
                std::string(kinetics::rate_law_form_name(rates_form)).c_str(),
                jit::format(l.ops).c_str(), seconds_since(t1));
  }
  bool first = true;
  for (int64_t n : args.sizes) {
    const std::vector<double> states =
        sparse ? bench::as_concentrations(bench::random_kinetics_states(n, ns, seed), m, pressure)
               : bench::random_kinetics_states(n, ns, seed);
    std::printf("\n%s, %lld cells, p = %g Pa\n", mech.c_str(), (long long)n, pressure);
    std::fflush(stdout);
    if (!args.write_dir.empty()) {
      bench::ArraysFile f;
      f.add("states", states, B);
      f.add_scalar("pressure", pressure);
      f.write(bench::data_path(args, ("kinetics_" + mech).c_str(), n));
    }
    // Cells per assembler call: all of them, or --batch's.
    const int64_t batch = batch_cells > 0 ? std::min(batch_cells, n) : n;
    if (n % batch != 0) {
      std::fprintf(stderr, "kinetics_rates: %lld cells are not a multiple of --batch %lld\n",
                   (long long)n, (long long)batch);
      return 1;
    }
    const int64_t n_batches = n / batch;
    kinetics::ReactorCellsOptions o;
    o.pressure = pressure;
    o.rate_law.state = rates_law.state;
    o.rates_form = rates_form;
    o.columns_form = columns_form;
    o.assembler.backend = args.cpu ? assembly::Backend::Cpu : assembly::Backend::Cuda;
    // The element kernels' configuration (defaults: one chunk, one thread per cell).
    o.assembler.element_width = std::stoi(args.flag("--width", "0"));
    o.assembler.element_layout.threads_per_element =
        std::stoi(args.flag("--threads-per-cell", "1"));
    o.assembler.element_rows = std::stoi(args.flag("--rows", "0"));
    o.assembler.element_layout.side_by_side = args.flag("--side-by-side", "1") != "0";
    o.assembler.element_launches = std::stoi(args.flag("--launches", "0"));
    o.assembler.element_tape_columns = args.flag("--tape-columns", "1") != "0";
    assembly::TapeColumnsSettings& tc = o.assembler.element_tape_column_settings;
    tc.cell_run_bytes = std::stoi(args.flag("--cell-run-bytes", std::to_string(tc.cell_run_bytes)));
    tc.cell_launch_groups =
        std::stoi(args.flag("--cell-launch-groups", std::to_string(tc.cell_launch_groups)));
    tc.cell_min_blocks =
        std::stoi(args.flag("--cell-min-blocks", std::to_string(tc.cell_min_blocks)));
    tc.min_blocks = std::stoi(args.flag("--columns-min-blocks", std::to_string(tc.min_blocks)));
    tc.tapes_min_blocks =
        std::stoi(args.flag("--tapes-min-blocks", std::to_string(tc.tapes_min_blocks)));
    tc.group_slots = std::stoi(args.flag("--column-group-slots", std::to_string(tc.group_slots)));
    tc.component_group_slots =
        std::stoi(args.flag("--component-group-slots", std::to_string(tc.component_group_slots)));
    tc.launch_groups = std::stoi(args.flag("--launch-groups", std::to_string(tc.launch_groups)));
    tc.tile_window = std::stoi(args.flag("--tile-window", std::to_string(tc.tile_window)));
    tc.aux_parts = std::stoi(args.flag("--aux-parts", std::to_string(tc.aux_parts)));
    const std::string effort = args.flag("--effort", "auto");
    if (effort != "auto" && effort != "full") {
      std::fprintf(stderr, "kinetics_rates: --effort auto|full, not '%s'\n", effort.c_str());
      return 1;
    }
    o.assembler.compile_effort =
        effort == "full" ? jit::CompileEffort::Full : jit::CompileEffort::Auto;
    if (const std::string b = args.flag("--cells-per-block", ""); !b.empty())
      o.assembler.element_layout.elements_per_block = std::stoi(b);
    if (const std::string m = args.flag("--min-blocks", ""); !m.empty())
      o.assembler.element_layout.min_blocks = std::stoi(m);
    if (const std::string b = args.flag("--rates-cells-per-block", ""); !b.empty())
      o.assembler.fused.layout.elements_per_block = std::stoi(b);
    if (const std::string m = args.flag("--rates-min-blocks", ""); !m.empty())
      o.assembler.fused.layout.min_blocks = std::stoi(m);
    auto t1 = std::chrono::steady_clock::now();
    kinetics::ReactorCells cells(m, batch, o);
    const double graph_s = seconds_since(t1);
    assembly::Assembler& a = cells.assembler();
    const size_t n_rates = size_t(n) * B;
    const size_t per_cell = sparse ? size_t(cells.jacobian_pattern().nnz()) : size_t(B) * B;
    const size_t n_jac = size_t(n) * per_cell;

    double w_ms = 0, j_ms = 0, jc_ms = 0, jcol_ms = 0, w_first = 0, j_first = 0, jc_first = 0,
           jcol_first = 0;
    std::vector<double> rates;
    double j_abs = 0, jc_abs = 0, jcol_abs = 0;
    // The probes' largest difference over each block's largest entry; Jc_transposed says
    // whether it is round-off (at most 1e-14): Jcol's launches group the columns otherwise
    // than J's and Jc's, and ptxas may contract the same sums otherwise.
    double transposed_rel = 0;
    // Column-major blocks (Jcol's) row-major.
    const auto rows_of = [B](const double* col_block) {
      std::vector<double> out(size_t(B) * B);
      for (int r = 0; r < B; ++r)
        for (int c = 0; c < B; ++c) out[size_t(r * B + c)] = col_block[c * B + r];
      return out;
    };
    const auto probe_difference = [&](const double* jc_block, const double* j_block) {
      double scale = 0, diff = 0;
      for (int rc = 0; rc < B * B; ++rc) {
        scale = std::max(scale, std::abs(j_block[rc]));
        diff = std::max(diff, std::abs(jc_block[rc] - j_block[rc]));
      }
      if (scale > 0) transposed_rel = std::max(transposed_rel, diff / scale);
    };
    std::vector<assembly::KernelInfo> k_rates, k_jac, k_jc;  // the kernels after each output
    // A few cells' blocks, to check that the component-major output and the column-major
    // blocks are the cell-major one transposed (Jc_transposed, Jc_rel: both).
    const std::vector<int64_t> probe = {0, n / 3, n - 1};
    std::vector<double> probe_blocks;
    if (!args.cpu) {
      // In batches, every cell's state stays on the device and each batch's is copied into the
      // assembler's state buffer before its run (ordered on the null stream).
      cuda::DeviceBuffer all_states;
      if (n_batches > 1) {
        all_states = cuda::DeviceBuffer(states.size() * sizeof(double));
        all_states.upload(states.data(), all_states.bytes());
      } else {
        a.set_state(states);
      }
      cuda::check_last("set_state");
      const auto load_batch = [&](int64_t b) {
        if (n_batches == 1) return;
        cuda::copy_on_device(
            a.state_device(),
            reinterpret_cast<const double*>(all_states.get()) + size_t(b * batch) * B,
            size_t(batch) * B * sizeof(double));
      };
      const auto each_batch = [&](const std::function<void(int64_t)>& run) {
        for (int64_t b = 0; b < n_batches; ++b) {
          load_batch(b);
          run(b);
        }
      };
      t1 = std::chrono::steady_clock::now();
      load_batch(0);
      a.run_residual();
      cuda::check_last("kinetics rates");
      w_first = seconds_since(t1);
      k_rates = a.kernels();
      k_jac = k_rates;
      if (jacobian) {
        t1 = std::chrono::steady_clock::now();
        a.run_element_blocks(0, assembly::BlockOrder::CellMajor);
        cuda::check_last("kinetics Jacobian");
        j_first = seconds_since(t1);
        k_jac = a.kernels();
        t1 = std::chrono::steady_clock::now();
        a.run_element_blocks(0, assembly::BlockOrder::ComponentMajor);
        cuda::check_last("kinetics Jacobian, component-major");
        jc_first = seconds_since(t1);
        k_jc = a.kernels();
        j_ms = bench::median_ms([&] { a.run_element_blocks(0, assembly::BlockOrder::CellMajor); },
                                args.reps);
        jc_ms = bench::median_ms(
            [&] { a.run_element_blocks(0, assembly::BlockOrder::ComponentMajor); }, args.reps);
        t1 = std::chrono::steady_clock::now();
        a.run_element_blocks(0, assembly::BlockOrder::CellMajorColumns);
        cuda::check_last("kinetics Jacobian, cell-major columns");
        jcol_first = seconds_since(t1);
        jcol_ms = bench::median_ms(
            [&] { a.run_element_blocks(0, assembly::BlockOrder::CellMajorColumns); }, args.reps);
      }
      if (sparse) {
        t1 = std::chrono::steady_clock::now();
        a.run_element_sparse_blocks(0);
        cuda::check_last("kinetics sparse Jacobian");
        j_first = seconds_since(t1);
        k_jac = a.kernels();
        j_ms = bench::median_ms(
            [&] { each_batch([&](int64_t) { a.run_element_sparse_blocks(0); }); }, args.reps);
        j_abs = 0;
        each_batch([&](int64_t) {
          j_abs += device_abs_sum(a.run_element_sparse_blocks(0), size_t(batch) * per_cell);
        });
        cuda::check_last("kinetics sparse Jacobian");
      }
      w_ms = bench::median_ms([&] { each_batch([&](int64_t) { a.run_residual(); }); }, args.reps);
      // Checksums from the device results (the outputs of the timed calls).
      rates.resize(n_rates);
      each_batch([&](int64_t b) {
        const double* w = a.run_residual();
        cuda::check_last("kinetics rates");
        cuda::download(rates.data() + size_t(b * batch) * B, w, size_t(batch) * B * sizeof(double));
      });
      if (jacobian) {
        const double* j = a.run_element_blocks(0, assembly::BlockOrder::CellMajor);
        cuda::check_last("kinetics Jacobian");
        j_abs = device_abs_sum(j, n_jac);
        for (int64_t c : probe) {
          probe_blocks.resize(probe_blocks.size() + size_t(B) * B);
          cuda::download(probe_blocks.data() + probe_blocks.size() - size_t(B) * B,
                         j + size_t(c) * B * B, size_t(B) * B * sizeof(double));
        }
        const double* jc = a.run_element_blocks(0, assembly::BlockOrder::ComponentMajor);
        cuda::check_last("kinetics Jacobian, component-major");
        jc_abs = device_abs_sum(jc, n_jac);
        for (size_t p = 0; p < probe.size(); ++p) {
          std::vector<double> block(size_t(B) * B);
          for (int rc = 0; rc < B * B; ++rc)
            cuda::download(&block[size_t(rc)], jc + size_t(rc) * n + probe[p], sizeof(double));
          probe_difference(block.data(), probe_blocks.data() + p * B * B);
        }
        const double* jcol = a.run_element_blocks(0, assembly::BlockOrder::CellMajorColumns);
        cuda::check_last("kinetics Jacobian, cell-major columns");
        jcol_abs = device_abs_sum(jcol, n_jac);
        for (size_t p = 0; p < probe.size(); ++p) {
          std::vector<double> block(size_t(B) * B);
          cuda::download(block.data(), jcol + size_t(probe[p]) * B * B,
                         size_t(B) * B * sizeof(double));
          probe_difference(rows_of(block.data()).data(), probe_blocks.data() + p * B * B);
        }
      }
    } else {
      // CPU (no CUDA events): the call that host-compiles or loads the kernel is timed apart,
      // so that the medians measure the evaluation alone.
      const int reps = std::min(args.reps, 3);
      t1 = std::chrono::steady_clock::now();
      rates = cells.rates(states);
      w_first = seconds_since(t1);
      k_rates = a.kernels();
      w_ms = tuning::median_wall_ms([&] { cells.rates(states); }, 0, reps);
      k_jac = k_rates;
      if (sparse) {
        t1 = std::chrono::steady_clock::now();
        const std::vector<double> j = cells.sparse_jacobian(states);
        j_first = seconds_since(t1);
        k_jac = a.kernels();
        j_ms = tuning::median_wall_ms([&] { cells.sparse_jacobian(states); }, 0, reps);
        j_abs = abs_sum(j.data(), n_jac);
      }
      if (jacobian) {
        t1 = std::chrono::steady_clock::now();
        std::vector<double> j = cells.jacobian(states, assembly::BlockOrder::CellMajor);
        j_first = seconds_since(t1);
        k_jac = a.kernels();
        t1 = std::chrono::steady_clock::now();
        std::vector<double> jc = cells.jacobian(states, assembly::BlockOrder::ComponentMajor);
        jc_first = seconds_since(t1);
        k_jc = a.kernels();
        j_ms = tuning::median_wall_ms([&] { cells.jacobian(states); }, 0, reps);
        jc_ms = tuning::median_wall_ms(
            [&] { cells.jacobian(states, assembly::BlockOrder::ComponentMajor); }, 0, reps);
        t1 = std::chrono::steady_clock::now();
        std::vector<double> jcol = cells.jacobian(states, assembly::BlockOrder::CellMajorColumns);
        jcol_first = seconds_since(t1);
        jcol_ms = tuning::median_wall_ms(
            [&] { cells.jacobian(states, assembly::BlockOrder::CellMajorColumns); }, 0, reps);
        j_abs = abs_sum(j.data(), n_jac);
        jc_abs = abs_sum(jc.data(), n_jac);
        jcol_abs = abs_sum(jcol.data(), n_jac);
        for (int64_t c : probe) {
          std::vector<double> block(size_t(B) * B);
          for (int rc = 0; rc < B * B; ++rc) block[size_t(rc)] = jc[size_t(rc) * n + c];
          probe_difference(block.data(), j.data() + size_t(c) * B * B);
          probe_difference(rows_of(jcol.data() + size_t(c) * B * B).data(),
                           j.data() + size_t(c) * B * B);
        }
      }
    }
    const std::vector<assembly::KernelInfo> kernels = a.kernels();
    if (k_jc.empty()) k_jc = k_jac;
    if (first) {
      std::printf("kernel graph built in %.2f s\n", graph_s);
      print_kernels(k_rates, "rates", w_first, mech);
      print_kernels(added(k_jac, k_rates), "jacobian", j_first, mech);
      print_kernels(added(k_jc, k_jac), "jacobian-component-major", jc_first, mech);
      print_kernels(added(kernels, k_jc), "jacobian-cell-major-columns", jcol_first, mech);
      first = false;
    }
    int w_flops = 0;
    for (const auto& k : k_rates) w_flops += k.flops;
    const Checksums cs = rate_checksums(rates, ns);
    // Bytes: the state read once (the uniform p is one number), the outputs written once.
    const double state_b = double(n_rates) * 8, rates_b = double(n_rates) * 8,
                 jac_b = double(n_jac) * 8;
    const double floor_w = args.cpu ? 0 : (state_b + rates_b) / bw * 1e3;
    const double floor_j = args.cpu ? 0 : (state_b + jac_b) / bw * 1e3;
    const double floor_w_arith = peak > 0 ? double(w_flops) * double(n) / peak * 1e3 : 0;
    std::printf(
        "RESULT kinetics_dualjit mechanism=%s backend=%s cells=%lld species=%d reactions=%zu "
        "form=%s w_ms=%.4f J_ms=%.4f Jc_ms=%.4f floor_w_ms=%.4f floor_w_arith_ms=%.4f "
        "floor_J_ms=%.4f "
        "w_flops=%d wdot_sum=%.17g wdot_abs_sum=%.17g q_sum=%.17g J_abs_sum=%.17g "
        "Jc_abs_sum=%.17g Jc_transposed=%s Jc_rel=%.3g sparse=%s nnz=%lld Jcol_ms=%.4f "
        "Jcol_abs_sum=%.17g\n",
        mech.c_str(), args.cpu ? "cpu" : "cuda", (long long)n, ns, m.reactions.size(),
        std::string(kinetics::rate_law_form_name(rates_form)).c_str(), w_ms, j_ms, jc_ms, floor_w,
        floor_w_arith, floor_j, w_flops, cs.wdot_sum, cs.wdot_abs_sum, cs.q_sum, j_abs, jc_abs,
        transposed_rel <= 1e-14 ? "yes" : "NO", transposed_rel, sparse ? "yes" : "no",
        (long long)(n_jac / size_t(n)), jcol_ms, jcol_abs);
    std::fflush(stdout);
  }
  return 0;
}
