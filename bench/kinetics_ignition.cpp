// Batched ignition (issue 17's benchmark): N adiabatic constant-pressure reactors of one
// mechanism and mixture (GRI-3.0, CH4:1, O2:2, N2:7.52 at 10 atm by default) whose initial
// temperatures are spread evenly over [T_lo, T_hi] (1000-1600 K), each integrated by
// solvers::integrate_stiff (--method bdf, the default, or rodas4; exact Jacobian) from 0 to
// twice its own ignition delay, in
// one batched call on the GPU (--cpu: the CPU backend). The delays come from a probe batch of
// --probe reactors over the same range, integrated first (which also compiles the kernels), by
// log-linear interpolation in 1/T0; each timed run then tracks every reactor's delay (time of
// its largest dT/dt) again. Timed: the integrate_stiff call, wall clock (it synchronises), host
// step control and transfers included; the report splits it into Jacobians, LU factorisations,
// stages (right-hand sides and solves) and control, and counts per reactor the attempted
// steps, Jacobians, factorisations and right-hand sides.
//
//   kinetics_ignition [--mechanism FILE[:PHASE]] [--composition X] [--pressure-atm P]
//                     [--t-range LO HI] [--rtol R] [--atol A] [--probe N] [--effort auto|full]
//                     [--rows R] [--min-blocks M] [--method bdf|rodas4] [--cpu] [--write DIR]
//                     [CELLS ...]
//     (default gri30.yaml, 1000 10000 100000; rtol 1e-6, atol 1e-12; probe 48)
// --effort and --rows: the kernels' NVRTC effort and the Jacobian's row groups
// (assembly::AssemblerOptions::compile_effort, element_rows; issue 16's fastest GRI-3.0
// kernels are --effort full --rows 2). --min-blocks: blocks per SM ptxas must fit for the
// Jacobian's kernels (LaunchLayout::min_blocks; ReactorOdes' default unless given).
// --write DIR writes DIR/ignition_<mechanism>_<CELLS>.json, the cases and dualjit's results,
// as the peers read them (bench/peers/ignition_cantera_cpu.py, ignition_canterax.py).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backends/cuda/driver.h"
#include "bench/wall_clock.h"
#include "examples/kinetics/composition.h"
#include "examples/kinetics/reactor_odes.h"
#include "solvers/stiff_integrator.h"

using namespace dualjit;
using namespace dualjit::kinetics;

namespace {

struct Options {
  std::string mechanism = "gri30.yaml", composition = "CH4:1, O2:2, N2:7.52", write_dir;
  double pressure_atm = 10, t_lo = 1000, t_hi = 1600, rtol = 1e-6, atol = 1e-12;
  int probe = 48, rows = 0, min_blocks = reactor_odes_assembler_options().element_layout.min_blocks;
  bool cpu = false, full_effort = false;
  solvers::StiffMethod method = solvers::StiffMethod::bdf;
  std::vector<int64_t> cells;
};

const char* method_name(solvers::StiffMethod m) {
  return m == solvers::StiffMethod::bdf ? "bdf" : "rodas4";
}

[[noreturn]] void usage(const char* argv0, const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", argv0, what.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(argv[0], "option " + s + " needs a value");
      return argv[++i];
    };
    if (s == "--mechanism")
      o.mechanism = value();
    else if (s == "--composition")
      o.composition = value();
    else if (s == "--pressure-atm")
      o.pressure_atm = std::stod(value());
    else if (s == "--t-range") {
      o.t_lo = std::stod(value());
      o.t_hi = std::stod(value());
    } else if (s == "--rtol")
      o.rtol = std::stod(value());
    else if (s == "--atol")
      o.atol = std::stod(value());
    else if (s == "--probe")
      o.probe = std::max(3, std::atoi(value().c_str()));
    else if (s == "--effort")
      o.full_effort = value() == "full";
    else if (s == "--rows")
      o.rows = std::atoi(value().c_str());
    else if (s == "--min-blocks")
      o.min_blocks = std::atoi(value().c_str());
    else if (s == "--method") {
      const std::string v = value();
      if (v != "bdf" && v != "rodas4") usage(argv[0], "--method is bdf or rodas4");
      o.method = v == "bdf" ? solvers::StiffMethod::bdf : solvers::StiffMethod::rodas4;
    } else if (s == "--write")
      o.write_dir = value();
    else if (s == "--cpu")
      o.cpu = true;
    else if (!s.empty() && s[0] != '-')
      o.cells.push_back(std::atoll(s.c_str()));
    else
      usage(argv[0], "unknown option " + s);
  }
  if (o.cells.empty())
    o.cells = o.cpu ? std::vector<int64_t>{100} : std::vector<int64_t>{1000, 10000, 100000};
  return o;
}

std::vector<double> spread(double lo, double hi, int64_t n) {
  std::vector<double> t(n);
  for (int64_t i = 0; i < n; ++i) t[i] = n == 1 ? lo : lo + (hi - lo) * double(i) / double(n - 1);
  return t;
}

std::vector<double> initial_states(const std::vector<double>& T0, const std::vector<double>& Y0) {
  std::vector<double> y;
  y.reserve(T0.size() * (Y0.size() + 1));
  for (double T : T0) {
    y.push_back(T);
    y.insert(y.end(), Y0.begin(), Y0.end());
  }
  return y;
}

void write_list(std::ofstream& out, const char* key, const std::vector<double>& v,
                bool last = false) {
  out << "\"" << key << "\": [";
  for (size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
  out << "]" << (last ? "\n" : ",\n");
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (!o.cpu && !cuda::driver_available()) {
    std::printf("no GPU: %s\n", cuda::driver_unavailable_reason().c_str());
    return 1;
  }
  const Mechanism m = load_mechanism(o.mechanism);
  const std::vector<double> Y0 = mass_fractions_from_moles(m, o.composition);
  const int n = static_cast<int>(m.species.size()) + 1;
  const std::string device = o.cpu ? "CPU" : cuda::Context::primary().device().name;
  std::printf(
      "kinetics_ignition: %s (%zu species, %zu reactions), %s at %g atm, T0 %g-%g K, "
      "to 2 tau, %s, rtol %g, atol %g, effort %s, rows %d, min blocks %d, %s\n",
      m.file.c_str(), m.species.size(), m.reactions.size(), o.composition.c_str(), o.pressure_atm,
      o.t_lo, o.t_hi, method_name(o.method), o.rtol, o.atol, o.full_effort ? "full" : "auto",
      o.rows, o.min_blocks, device.c_str());
  ReactorOdesOptions ro;
  ro.pressure = o.pressure_atm * kOneAtm;
  ro.assembler.backend = o.cpu ? assembly::Backend::Cpu : assembly::Backend::Cuda;
  if (o.full_effort) ro.assembler.compile_effort = jit::CompileEffort::Full;
  ro.assembler.element_rows = o.rows;
  ro.assembler.element_layout.min_blocks = o.min_blocks;
  solvers::StiffOptions so;
  so.rtol = o.rtol;
  so.atol = o.atol;
  so.method = o.method;
  so.peak_component = 0;

  // The probe: delays over the range, to a generous end (and the kernels' compile).
  const std::vector<double> probe_T = spread(o.t_lo, o.t_hi, o.probe);
  std::vector<double> probe_tau;
  {
    const auto t0 = std::chrono::steady_clock::now();
    ReactorOdes odes(m, o.probe, ro);
    std::vector<double> y = initial_states(probe_T, Y0);
    const solvers::StiffReport r =
        solvers::integrate_stiff(odes, y, std::vector<double>(o.probe, 1.0), so);
    if (r.failed()) {
      std::printf("probe failed: %s\n", r.failures().c_str());
      return 1;
    }
    probe_tau = r.peak_time;
    std::printf(
        "probe: %d reactors to 1 s, %.2f s (compile included); tau %.4g ms at %g K, "
        "%.4g ms at %g K\n",
        o.probe, bench::seconds_since(t0), probe_tau.front() * 1e3, probe_T.front(),
        probe_tau.back() * 1e3, probe_T.back());
  }
  auto tau_at = [&](double T) {  // log tau linear in 1/T between probe points
    size_t i = 1;
    while (i + 1 < probe_T.size() && probe_T[i] < T) ++i;
    const double x0 = 1 / probe_T[i - 1], x1 = 1 / probe_T[i], x = 1 / T;
    const double w = (x - x0) / (x1 - x0);
    return std::exp((1 - w) * std::log(probe_tau[i - 1]) + w * std::log(probe_tau[i]));
  };

  std::printf("%8s %9s %11s %7s %9s %9s %7s %7s %7s %9s %9s %9s %9s %10s\n", "cells", "seconds",
              "reactors/s", "rounds", "steps/cl", "maxsteps", "jac/cl", "lu/cl", "f/cl", "jac_s",
              "lu_s", "stage_s", "ctrl_s", "tau_dev");
  for (int64_t cells : o.cells) {
    const std::vector<double> T0 = spread(o.t_lo, o.t_hi, cells);
    std::vector<double> t_end(cells);
    for (int64_t i = 0; i < cells; ++i) t_end[i] = 2 * tau_at(T0[i]);
    std::vector<double> y = initial_states(T0, Y0);
    ReactorOdes odes(m, cells, ro);
    odes.check_states(y);
    const solvers::StiffReport r = solvers::integrate_stiff(odes, y, t_end, so);
    if (r.failed()) std::printf("FAILED: %s\n", r.failures().c_str());
    double tau_dev = 0;
    int max_steps = 0;
    for (int64_t i = 0; i < cells; ++i) {
      tau_dev = std::max(tau_dev, std::abs(r.peak_time[i] / tau_at(T0[i]) - 1));
      max_steps = std::max(max_steps, r.steps[i]);
    }
    const double per = 1.0 / cells;
    std::printf(
        "%8lld %9.3f %11.1f %7d %9.1f %9d %7.1f %7.1f %7.1f %9.3f %9.3f %9.3f %9.3f %10.2e\n",
        static_cast<long long>(cells), r.seconds, cells / r.seconds, r.rounds, r.system_steps * per,
        max_steps, r.system_jacobians * per, r.system_factorizations * per, r.system_rhs * per,
        r.jacobian_seconds, r.factor_seconds, r.stage_seconds, r.control_seconds, tau_dev);
    std::printf(
        "RESULT mechanism=%s method=%s cells=%lld seconds=%.4f reactors_per_s=%.2f rounds=%d "
        "steps_mean=%.1f jacobians_mean=%.1f factorizations_mean=%.1f rhs_mean=%.1f "
        "jacobian_s=%.4f factor_s=%.4f stage_s=%.4f rhs_s=%.4f newton_s=%.4f newton_sweeps=%lld "
        "newton_rows_mean=%.1f control_s=%.4f rtol=%g atol=%g device=\"%s\"\n",
        std::filesystem::path(m.file).filename().c_str(), method_name(o.method),
        static_cast<long long>(cells), r.seconds, cells / r.seconds, r.rounds, r.system_steps * per,
        r.system_jacobians * per, r.system_factorizations * per, r.system_rhs * per,
        r.jacobian_seconds, r.factor_seconds, r.stage_seconds, r.rhs_seconds, r.newton_seconds,
        static_cast<long long>(r.newton_sweeps),
        r.newton_sweeps > 0 ? double(r.newton_rows) / double(r.newton_sweeps) : 0.0,
        r.control_seconds, o.rtol, o.atol, device.c_str());
    std::fflush(stdout);
    if (!o.write_dir.empty()) {
      std::filesystem::create_directories(o.write_dir);
      const std::string stem = std::filesystem::path(m.file).stem().string();
      std::ofstream out(o.write_dir + "/ignition_" + stem + "_" + std::to_string(cells) + ".json");
      out.precision(17);
      out << "{\n\"mechanism\": \"" << std::filesystem::absolute(m.file).string()
          << "\",\n\"phase\": \"" << m.phase << "\",\n\"pressure\": " << ro.pressure
          << ",\n\"composition\": \"" << o.composition << "\",\n\"species\": [";
      for (size_t k = 0; k < m.species.size(); ++k)
        out << (k ? ", " : "") << "\"" << m.species[k].name << "\"";
      out << "],\n\"rtol\": " << o.rtol << ",\n\"atol\": " << o.atol << ",\n\"device\": \""
          << device << "\",\n\"seconds\": " << r.seconds << ",\n";
      write_list(out, "Y0", Y0);
      write_list(out, "T0", T0);
      write_list(out, "t_end", t_end);
      write_list(out, "tau", r.peak_time);
      std::vector<double> T_final(cells);
      for (int64_t i = 0; i < cells; ++i) T_final[i] = y[i * n];
      write_list(out, "T_final", T_final, true);
      out << "}\n";
    }
  }
  return 0;
}
