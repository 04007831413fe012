#include "tools/ignition_demo_command.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "examples/kinetics/ignition_demo.h"
#include "tools/command_support.h"

namespace dualjit::tools {

namespace {

// Options of the kernel problems and the energy applications that mean nothing here.
constexpr const char* kNotHere[] = {"--mode",  "--repeats", "--elements",       "--set",
                                    "--width", "--layout",  "--max-iterations", "--mesh"};
constexpr const char* kOwn[] = {"--T0",    "--pressure", "--composition",
                                "--t-end", "--t-range",  "--no-cantera"};

double positive(const Args& args, const char* name, double fallback) {
  const double v = args.get_double(name, fallback);
  if (!(v > 0) || !std::isfinite(v))
    throw UsageError(std::string(name) + " must be finite and positive, not " + args.get(name));
  return v;
}

// --t-range LO:HI, in kelvin.
std::pair<double, double> temperature_range(const Args& args) {
  const std::string text = args.get("--t-range");
  const size_t colon = text.find(':');
  const auto bad = [&]() {
    return UsageError("--t-range takes LO:HI in kelvin (e.g. 900:1500), not '" + text + "'");
  };
  if (colon == std::string::npos) throw bad();
  double lo = 0, hi = 0;
  try {
    size_t a = 0, b = 0;
    lo = std::stod(text.substr(0, colon), &a);
    hi = std::stod(text.substr(colon + 1), &b);
    if (a != colon || b != text.size() - colon - 1) throw bad();
  } catch (const std::invalid_argument&) {
    throw bad();
  } catch (const std::out_of_range&) {
    throw bad();
  }
  if (!(lo > 0) || !(hi >= lo) || !std::isfinite(hi)) throw bad();
  return {lo, hi};
}

std::string ms(double tau_s) {
  return std::isfinite(tau_s) ? fmt("%.5g", tau_s * 1e3) : "-";
}

}  // namespace

bool ignition_demo_available() {
  return true;
}

std::string ignition_demo_description() {
  return "ignition delays of adiabatic constant-pressure reactors over T0 (900-1500 K; GRI-3.0, "
         "CH4/air, 10 atm), Cantera's beside them; --T0 K: one case";
}

void add_ignition_options(Args& args) {
  args.option("--T0", "K", "ignition: one case at this initial temperature (else a sweep)")
      .option("--pressure", "PA",
              "ignition: pressure in Pa (default 1013250 for the sweep, 101325 for --T0)")
      .option("--composition", "X",
              "ignition: mole fractions as Cantera writes them (default 'CH4:1, O2:2, N2:7.52')")
      .option("--t-end", "S", "ignition: end time of every reactor, s (default 10)")
      .option("--t-range", "LO:HI", "ignition: the sweep's initial temperatures, K (900:1500)")
      .flag("--no-cantera", "ignition: do not run Cantera (DUALJIT_PYTHON, else python3)");
}

void refuse_ignition_options(const Args& args, const std::string& problem) {
  for (const char* o : kOwn)
    if (args.has(o))
      throw UsageError(std::string(o) + " applies to the demo ignition, not to " + problem);
}

int ignition_demo(const Args& args) {
  for (const char* o : kNotHere)
    if (args.has(o)) throw UsageError(std::string(o) + " does not apply to the demo ignition");
  refuse_problem_options(args, {&recipe_named("kinetics")}, "the demo ignition");
  const bool single = args.has("--T0");
  if (single) {
    for (const char* o : {"--size", "--t-range", "--output"})
      if (args.has(o))
        throw UsageError(std::string(o) + " applies to the sweep; --T0 runs one case");
  }

  kinetics::IgnitionDemoOptions o;
  std::string why_cpu;
  const Target target = pick_target(args.has("--cpu"), &why_cpu);
  o.backend = target == Target::Cuda ? assembly::Backend::Cuda : assembly::Backend::Cpu;
  if (args.has("--mechanism")) o.mechanism = args.get("--mechanism");
  if (o.mechanism.empty()) throw UsageError("--mechanism: empty; give FILE or FILE:PHASE");
  if (args.has("--composition")) o.composition = args.get("--composition");
  o.t_end = positive(args, "--t-end", 10);
  if (single) {
    o.reactors = 1;
    o.T_lo = o.T_hi = positive(args, "--T0", 0);
    o.pressure = positive(args, "--pressure", kinetics::kOneAtm);
    o.rtol = 1e-9;  // Cantera's ReactorNet defaults
    o.atol = 1e-15;
    o.write_files = false;
  } else {
    o.pressure = positive(args, "--pressure", 10 * kinetics::kOneAtm);
    if (args.has("--t-range")) std::tie(o.T_lo, o.T_hi) = temperature_range(args);
    o.reactors = args.get_int("--size", 0);
    if (o.reactors < 0) throw UsageError("--size must not be negative");
    o.output_dir = args.get("--output");
  }
  if (!args.has("--no-cantera")) {
    const char* python = std::getenv("DUALJIT_PYTHON");
    o.python = python && *python ? python : "python3";
  }

  const bool json = args.has("--json");
  if (!json) {
    std::printf("backend: %s\n", target == Target::Cuda
                                     ? "CUDA"
                                     : ("CPU (host compiler + OpenMP); " + why_cpu).c_str());
    std::printf(
        "ignition demo: %s, %s at %.10g Pa, %s: running\n", o.mechanism.c_str(),
        o.composition.c_str(), o.pressure,
        single ? fmt("T0 %g K", o.T_lo).c_str() : fmt("T0 %g-%g K", o.T_lo, o.T_hi).c_str());
    std::fflush(stdout);
  }

  const kinetics::IgnitionDemoReport r = kinetics::run_ignition_demo(o);

  const auto n = static_cast<int64_t>(r.T0.size());
  std::string text = "ignition: " + r.summary + "\n";
  text += fmt("kernels: %lld compiled, %lld from the disk cache, ready in %.2f s\n",
              static_cast<long long>(r.kernels_compiled),
              static_cast<long long>(r.kernels_from_disk), r.kernel_seconds);
  if (!r.cantera.empty())
    text += r.cantera +
            (r.cantera_ran ? fmt(": %zu reactor%s in %.2f s", r.table.size(),
                                 r.table.size() == 1 ? "" : "s", r.cantera_seconds)
                           : std::string()) +
            "\n";
  Json facts = Json::object();
  Table ft({"fact", "value"});
  for (const auto& [name, value] : r.facts) {
    ft.row({name, value});
    facts.set(name, value);
  }
  Json j = Json::object();
  if (single) {
    const double tau = r.tau[0], cantera = r.table[0].cantera_tau;
    text += "\ntau: " + (std::isfinite(tau) ? ms(tau) + " ms" : std::string("- (no ignition)")) +
            "\n" + fmt("T_final: %.2f K\n", r.T_final[0]);
    if (r.cantera_ran)
      text += "Cantera's tau: " + ms(cantera) + " ms" +
              (std::isfinite(tau) && std::isfinite(cantera)
                   ? fmt(" (dualjit %+.3f %%)", 100 * (tau / cantera - 1))
                   : std::string()) +
              "\n";
    text += fmt("integration: %.3f s, %d steps (%s)\n", r.seconds, r.steps[0], r.status[0].c_str());
    j.set("mode", "single")
        .set("tau_ms", tau * 1e3)
        .set("T_final_K", r.T_final[0])
        .set("ignited", std::isfinite(tau))
        .set("T0_K", r.T0[0])
        .set("pressure_Pa", o.pressure)
        .set("composition", o.composition)
        .set("t_end_s", o.t_end)
        .set("status", r.status[0])
        .set("steps", r.steps[0]);
    if (r.cantera_ran) j.set("cantera_tau_ms", cantera * 1e3);
  } else {
    Table t = r.cantera_ran
                  ? Table({"T0 (K)", "tau (ms)", "T_final (K)", "Cantera tau (ms)", "deviation"})
                  : Table({"T0 (K)", "tau (ms)", "T_final (K)"});
    Json rows = Json::array();
    for (const kinetics::IgnitionTableRow& row : r.table) {
      const int64_t i = row.reactor;
      std::vector<std::string> cells = {fmt("%.1f", r.T0[i]), ms(r.tau[i]),
                                        fmt("%.1f", r.T_final[i])};
      Json jr = Json::object()
                    .set("T0_K", r.T0[i])
                    .set("tau_ms", r.tau[i] * 1e3)
                    .set("T_final_K", r.T_final[i]);
      if (r.cantera_ran) {
        cells.push_back(ms(row.cantera_tau));
        const bool both = std::isfinite(r.tau[i]) && std::isfinite(row.cantera_tau);
        cells.push_back(both ? fmt("%+.3f %%", 100 * (r.tau[i] / row.cantera_tau - 1)) : "-");
        jr.set("cantera_tau_ms", row.cantera_tau * 1e3);
      }
      t.row(cells);
      rows.push(jr);
    }
    text += "\n" + t.str() + "\n";
    text += fmt("reactors: %lld\n", static_cast<long long>(n));
    text += fmt("seconds: %.3f\n", r.seconds);
    text += fmt("reactors per second: %.4g\n", r.seconds > 0 ? n / r.seconds : 0.0);
    text += fmt("steps: %lld (%.1f per reactor), %d rounds\n",
                static_cast<long long>(r.system_steps), double(r.system_steps) / n, r.rounds);
    j.set("mode", "sweep")
        .set("reactors", n)
        .set("T_lo_K", o.T_lo)
        .set("T_hi_K", o.T_hi)
        .set("pressure_Pa", o.pressure)
        .set("composition", o.composition)
        .set("t_end_s", o.t_end)
        .set("table", rows)
        .set("reactors_per_second", r.seconds > 0 ? n / r.seconds : 0.0)
        .set("steps", r.system_steps)
        .set("rounds", r.rounds);
  }
  if (r.failed) text += "failures: " + r.failures + "\n";
  text += '\n';
  text += ft.str();
  Json files = Json::array();
  if (!r.files.empty()) {
    text += "\nfiles:\n";
    for (const auto& f : r.files) {
      text += "  " + f.string() + "\n";
      files.push(f.string());
    }
  }
  text += r.ok ? "demo: ok\n" : "demo: FAILED\n";
  j.set("summary", r.summary)
      .set("backend", r.backend)
      .set("mechanism", r.mechanism_file)
      .set("phase", r.phase)
      .set("rtol", o.rtol)
      .set("atol", o.atol)
      .set("kernel_seconds", r.kernel_seconds)
      .set("kernels_compiled", r.kernels_compiled)
      .set("kernels_from_disk", r.kernels_from_disk)
      .set("seconds", r.seconds)
      .set("failed", r.failed)
      .set("not_ignited", r.not_ignited)
      .set("cantera", r.cantera)
      .set("facts", facts)
      .set("files", files)
      .set("ok", r.ok);
  if (r.cantera_ran) j.set("largest_deviation", r.largest_deviation);
  emit_output(args, j, text);
  return r.ok ? 0 : 1;
}

}  // namespace dualjit::tools
