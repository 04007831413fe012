#include "examples/kinetics/ignition_demo.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "examples/kinetics/composition.h"
#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/reactor_odes.h"
#include "examples/render/plot.h"
#include "jit/kernel_cache.h"
#include "solvers/stiff_integrator.h"

extern char** environ;

namespace dualjit::kinetics {
namespace {

namespace fs = std::filesystem;

constexpr int kTableRows = 13;  // every 50 K over the default 900-1500 K
constexpr int64_t kGpuReactors = 100000;
constexpr int64_t kCpuReactors = 16;
constexpr size_t kPlotPoints = 2000;  // the sweep's line: at most this many points

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string text(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

void check_positive(const std::string& what, double v) {
  if (!(v > 0) || !std::isfinite(v))
    throw MechanismError("ignition demo: " + what + " must be finite and positive, not " +
                         text("%g", v));
}

struct ProcessResult {
  int exit_status = 0;  // exit code, -signal when killed, 127 when it could not start
  std::string output;   // stdout and stderr, interleaved
  std::string start_error;
};

// Runs args[0] (looked up on PATH) without a shell, collecting its output.
ProcessResult run_process(const std::vector<std::string>& args) {
  ProcessResult result;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    result.exit_status = 127;
    result.start_error = std::string("pipe failed: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    result.exit_status = 127;
    result.start_error = std::strerror(rc);
    return result;
  }
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n > 0)
      result.output.append(buffer, static_cast<size_t>(n));
    else if (n == 0 || errno != EINTR)
      break;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  return result;
}

std::string last_line(const std::string& output) {
  std::string s = output;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  const size_t nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

// Cantera's delays (s; NaN: no ignition) at the table's T0 from cantera_ignition.py; fills
// report.cantera with what happened. Empty when it did not run.
std::vector<double> cantera_delays(const IgnitionDemoOptions& o, const Mechanism& m,
                                   const std::vector<double>& Y0, const std::vector<double>& T0,
                                   IgnitionDemoReport& report) {
  const fs::path script = o.cantera_script.empty()
                              ? fs::path(DUALJIT_KINETICS_SOURCE_DIR) / "cantera_ignition.py"
                              : o.cantera_script;
  std::string Y;
  for (size_t k = 0; k < Y0.size(); ++k)
    if (Y0[k] > 0) Y += (Y.empty() ? "" : ",") + m.species[k].name + ":" + text("%.17g", Y0[k]);
  std::vector<std::string> args = {o.python,      script.string(),
                                   "--mechanism", fs::absolute(m.file).string(),
                                   "--phase",     m.phase,
                                   "--pressure",  text("%.17g", o.pressure),
                                   "--Y",         Y,
                                   "--t-end",     text("%.17g", o.t_end)};
  for (double T : T0) args.push_back(text("%.17g", T));
  const std::string without = o.write_files ? "plot without it" : "no comparison";
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessResult r = run_process(args);
  report.cantera_seconds = seconds_since(t0);
  if (r.exit_status == 127 || r.exit_status == 3) {
    report.cantera = "Cantera not found (" + o.python + "): " + without;
    return {};
  }
  std::vector<double> tau;
  std::string version;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream s(line);
    std::string key, a, b;
    s >> key;
    if (key == "cantera") {
      s >> version;
    } else if (key == "tau" && (s >> a >> b)) {
      try {
        tau.push_back(std::stod(b));
      } catch (const std::exception&) {
        tau.push_back(std::numeric_limits<double>::quiet_NaN());
      }
    }
  }
  if (r.exit_status != 0 || tau.size() != T0.size()) {
    const std::string why = last_line(r.output);
    report.cantera = "Cantera failed (" + o.python + ", exit " + std::to_string(r.exit_status) +
                     ")" + (why.empty() ? "" : ": " + why) + ": " + without;
    return {};
  }
  report.cantera = "Cantera " + version + " (" + o.python + ")";
  report.cantera_ran = true;
  return tau;
}

void write_csv(const fs::path& file, const IgnitionDemoReport& r) {
  std::ofstream out(file);
  if (!out) throw std::runtime_error(file.string() + ": cannot be written");
  out << "T0_K,tau_s,T_final_K\n";
  char buf[128];
  for (size_t i = 0; i < r.T0.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.10g,%.10g,%.10g\n", r.T0[i], r.tau[i], r.T_final[i]);
    out << buf;
  }
  if (!out) throw std::runtime_error(file.string() + ": cannot be written");
}

render::Image plot(const IgnitionDemoReport& r, const IgnitionDemoOptions& o) {
  render::Series ours, theirs;
  ours.label = std::string("dualjit (") + (r.backend == "cuda" ? "GPU" : "CPU") + ", " +
               std::to_string(r.T0.size()) + " reactor" + (r.T0.size() == 1 ? "" : "s") + ")";
  ours.color = render::Rgba{31, 119, 180, 255};
  const size_t stride = std::max<size_t>(1, r.T0.size() / kPlotPoints);
  for (size_t i = 0; i < r.T0.size(); i += stride) {
    ours.x.push_back(1000.0 / r.T0[i]);
    ours.y.push_back(r.tau[i] * 1e3);  // NaN (no ignition) breaks the line
  }
  if (r.T0.size() <= 40) ours.marker = 6;  // few reactors: each one visible
  std::vector<render::Series> series{ours};
  if (r.cantera_ran) {
    theirs.label = r.cantera.substr(0, r.cantera.find(" ("));
    theirs.color = render::Rgba{214, 39, 40, 255};
    theirs.width = 0;
    theirs.marker = 11;
    for (const IgnitionTableRow& row : r.table) {
      theirs.x.push_back(1000.0 / r.T0[row.reactor]);
      theirs.y.push_back(row.cantera_tau * 1e3);
    }
    series.push_back(theirs);
  }
  render::PlotOptions po;
  po.width = 900;
  po.height = 600;
  po.log_y = true;
  po.legend_left = true;  // tau rises to the right (cooler)
  po.title = "ignition delay: " + fs::path(r.mechanism_file).stem().string() + ", " +
             text("%.4g", o.pressure / kOneAtm) + " atm";
  po.x_label = "1000 / T0 (1/K)";
  po.y_label = "tau (ms)";
  return render::render_plot(series, po);
}

}  // namespace

IgnitionDemoReport run_ignition_demo(const IgnitionDemoOptions& o) {
  check_positive("the pressure", o.pressure);
  check_positive("the lowest initial temperature", o.T_lo);
  check_positive("the highest initial temperature", o.T_hi);
  check_positive("the end time", o.t_end);
  check_positive("rtol", o.rtol);
  check_positive("atol", o.atol);
  if (o.T_hi < o.T_lo)
    throw MechanismError("ignition demo: the temperature range " + text("%g", o.T_lo) + "-" +
                         text("%g", o.T_hi) + " K is reversed");
  if (o.reactors < 0)
    throw MechanismError("ignition demo: the number of reactors must not be negative, not " +
                         std::to_string(o.reactors));

  IgnitionDemoReport r;
  const Mechanism m = load_mechanism(o.mechanism);
  const std::vector<double> Y0 = mass_fractions_from_moles(m, o.composition);
  const assembly::Backend backend = assembly::resolve_backend(o.backend);
  r.backend = backend == assembly::Backend::Cuda ? "cuda" : "cpu";
  r.mechanism_file = m.file;
  r.phase = m.phase;
  r.n_species = static_cast<int>(m.species.size());
  r.n_reactions = static_cast<int>(m.reactions.size());
  const int64_t n = o.reactors > 0
                        ? o.reactors
                        : (backend == assembly::Backend::Cuda ? kGpuReactors : kCpuReactors);
  const int nv = r.n_species + 1;
  r.T0.resize(n);
  for (int64_t i = 0; i < n; ++i)
    r.T0[i] = n == 1 ? o.T_lo : o.T_lo + (o.T_hi - o.T_lo) * double(i) / double(n - 1);
  const std::string range = n == 1 ? "T0 " + text("%g", o.T_lo) + " K"
                                   : "T0 " + text("%g", o.T_lo) + "-" + text("%g", o.T_hi) + " K";
  r.summary = fs::path(m.file).filename().string() + ", phase " + m.phase + " (" +
              std::to_string(r.n_species) + " species, " + std::to_string(r.n_reactions) +
              " reactions): " + o.composition + " at " + text("%.10g", o.pressure) +
              " Pa, constant pressure; " + std::to_string(n) + " reactor" + (n == 1 ? "" : "s") +
              ", " + range + ", to " + text("%g", o.t_end) + " s, rtol " + text("%g", o.rtol) +
              ", atol " + text("%g", o.atol);

  ReactorOdesOptions ro;
  ro.pressure = o.pressure;
  ro.assembler.backend = backend;
  solvers::StiffOptions so;
  so.rtol = o.rtol;
  so.atol = o.atol;
  so.peak_component = 0;
  const auto initial_states = [&](const std::vector<double>& T0) {
    std::vector<double> y;
    y.reserve(T0.size() * nv);
    for (double T : T0) {
      y.push_back(T);
      y.insert(y.end(), Y0.begin(), Y0.end());
    }
    return y;
  };

  // The kernels (right-hand side and Jacobian), compiled or loaded by a one-reactor warm-up, so
  // that the sweep's time is the integration's.
  {
    auto& cache = jit::KernelCache::global();
    const auto before = cache.stats();
    const auto t0 = std::chrono::steady_clock::now();
    ReactorOdes warm(m, 1, ro);
    std::vector<double> y = initial_states({o.T_hi});
    warm.check_states(y);
    solvers::integrate_stiff(warm, y, std::vector<double>{1e-9}, so);
    r.kernel_seconds = seconds_since(t0);
    const auto after = cache.stats();
    r.kernels_compiled = static_cast<int64_t>(after.misses - before.misses);
    r.kernels_from_disk = static_cast<int64_t>(after.disk_hits - before.disk_hits);
  }

  std::vector<double> y = initial_states(r.T0);
  ReactorOdes odes(m, n, ro);
  odes.check_states(y);
  const solvers::StiffReport sr =
      solvers::integrate_stiff(odes, y, std::vector<double>(n, o.t_end), so);
  r.seconds = sr.seconds;
  r.system_steps = sr.system_steps;
  r.rounds = sr.rounds;
  r.failed = sr.failed();
  if (r.failed) r.failures = sr.failures();
  r.tau.resize(n);
  r.T_final.resize(n);
  r.status.resize(n);
  r.steps = sr.steps;
  for (int64_t i = 0; i < n; ++i) {
    r.T_final[i] = y[i * nv];
    r.status[i] = std::string(solvers::stiff_status_name(sr.status[i]));
    const bool done = sr.status[i] == solvers::StiffStatus::done;
    const bool ignited = done && r.T_final[i] - r.T0[i] >= kIgnitionRise;
    r.tau[i] = ignited ? sr.peak_time[i] : std::numeric_limits<double>::quiet_NaN();
    if (done && !ignited) ++r.not_ignited;
  }

  // The table: the reactors nearest to kTableRows temperatures evenly over the range.
  const int marks = n == 1 ? 1 : kTableRows;
  for (int k = 0; k < marks; ++k) {
    const double f = marks == 1 ? 0 : double(k) / (marks - 1);
    const auto i = static_cast<int64_t>(std::llround(f * double(n - 1)));
    if (r.table.empty() || r.table.back().reactor != i) r.table.push_back({i, -1});
  }
  if (!o.python.empty()) {
    std::vector<double> T0;
    for (const IgnitionTableRow& row : r.table) T0.push_back(r.T0[row.reactor]);
    const std::vector<double> tau = cantera_delays(o, m, Y0, T0, r);
    for (size_t k = 0; k < tau.size(); ++k) r.table[k].cantera_tau = tau[k];
  }

  // What was checked.
  int mismatched = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (double t : r.tau)
    if (std::isfinite(t)) {
      lo = std::min(lo, t);
      hi = std::max(hi, t);
    }
  if (r.cantera_ran)
    for (const IgnitionTableRow& row : r.table) {
      const double ours = r.tau[row.reactor], theirs = row.cantera_tau;
      if (std::isnan(ours) != std::isnan(theirs))
        ++mismatched;
      else if (!std::isnan(ours))
        r.largest_deviation = std::max(r.largest_deviation, std::abs(ours / theirs - 1));
    }
  r.facts.push_back({"reactors failed", std::to_string(r.failed)});
  r.facts.push_back({"reactors without ignition (T rose < 400 K)", std::to_string(r.not_ignited)});
  if (hi > 0)
    r.facts.push_back(
        {"tau range", text("%.4g", lo * 1e3) + " - " + text("%.4g", hi * 1e3) + " ms"});
  if (r.cantera_ran) {
    r.facts.push_back({"largest |tau / Cantera's - 1| (table)",
                       text("%.3f %%", 100 * r.largest_deviation) + " (limit " +
                           text("%g", 100 * kCanteraTolerance) + " %)"});
    if (mismatched)
      r.facts.push_back(
          {"table rows where only one of dualjit and Cantera ignited", std::to_string(mismatched)});
  }
  r.ok = r.failed == 0 &&
         (!r.cantera_ran || (mismatched == 0 && r.largest_deviation <= kCanteraTolerance));

  if (o.write_files) {
    const fs::path dir = o.output_dir.empty() ? fs::path(".") : o.output_dir;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
      throw std::runtime_error("ignition demo: cannot create " + dir.string() + ": " +
                               ec.message());
    r.files.push_back(dir / "ignition.csv");
    write_csv(r.files.back(), r);
    r.files.push_back(dir / "ignition.png");
    render::write_png(plot(r, o), r.files.back());
  }
  return r;
}

}  // namespace dualjit::kinetics
