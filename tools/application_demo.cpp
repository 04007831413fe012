#include "tools/application_demo.h"

#include <cstdio>

#include "solvers/iteration_log.h"
#include "tools/command_support.h"

namespace dualjit::tools {

namespace {

// Options of the kernel problems' demo that mean nothing to an application.
constexpr const char* kKernelOnly[] = {"--mode", "--repeats", "--elements",
                                       "--set",  "--width",   "--layout"};
constexpr const char* kApplicationOnly[] = {"--mesh", "--output", "--max-iterations"};

}  // namespace

void add_application_options(Args& args) {
  args.option("--mesh", "PATH", "applications: the input mesh (OFF or OBJ) where one is read")
      .option("--output", "DIR", "applications: where files go (default: the current directory)")
      .option("--max-iterations", "N", "applications: solver iterations (default: the demo's)");
}

void refuse_application_options(const Args& args, const std::string& problem) {
  for (const char* o : kApplicationOnly)
    if (args.has(o))
      throw UsageError(std::string(o) + " applies to the energy applications, not to the problem " +
                       problem);
}

int application_demo(const Application& app, const Args& args) {
  for (const char* o : kKernelOnly)
    if (args.has(o))
      throw UsageError(std::string(o) + " applies to the kernel problems, not to the application " +
                       app.name);
  refuse_problem_options(args, {}, "the application " + app.name);
  if (args.has("--mesh") && !app.takes_mesh)
    throw UsageError("the application " + app.name + " builds its own mesh; it takes no --mesh");
  mesh_energy::DemoOptions o;
  std::string why_cpu;
  const Target target = pick_target(args.has("--cpu"), &why_cpu);
  o.backend = target == Target::Cuda ? assembly::Backend::Cuda : assembly::Backend::Cpu;
  o.size = args.get_int("--size", 0);
  if (o.size < 0) throw UsageError("--size must not be negative");
  const int64_t iterations = args.get_int("--max-iterations", 0);
  if (iterations < 0 || iterations > 1000000)
    throw UsageError("--max-iterations must be in [0, 1000000]");
  o.max_iterations = static_cast<int>(iterations);
  o.mesh = args.get("--mesh");
  o.output_dir = args.get("--output");
  const bool json = args.has("--json");
  if (!json) {
    std::printf("backend: %s\n", target == Target::Cuda
                                     ? "CUDA"
                                     : ("CPU (host compiler + OpenMP); " + why_cpu).c_str());
    std::printf("application %s: running (%s)\n", app.name.c_str(), app.description.c_str());
    std::fflush(stdout);
  }

  const mesh_energy::DemoReport r = app.run(o);

  std::string text = r.name + ": " + r.summary + "\n\n" + solvers::format_log(r.solve) + "\n";
  Table facts({"fact", "value"});
  Json jf = Json::object();
  for (const auto& [name, value] : r.facts) {
    facts.row({name, value});
    jf.set(name, value);
  }
  text += facts.str() + "\nfiles:\n";
  Json files = Json::array();
  for (const auto& f : r.files) {
    text += "  " + f.string() + "\n";
    files.push(f.string());
  }
  text += r.ok ? "demo: ok\n" : "demo: FAILED\n";
  const Json j = Json::object()
                     .set("name", r.name)
                     .set("backend", r.backend)
                     .set("summary", r.summary)
                     .set("converged", r.solve.converged())
                     .set("stop_reason", std::string(solvers::stop_reason_name(r.solve.reason)))
                     .set("iterations", r.solve.n_steps())
                     .set("energy", r.solve.energy)
                     .set("gradient_norm", r.solve.gradient_norm)
                     .set("seconds", r.solve.seconds)
                     .set("facts", jf)
                     .set("files", files)
                     .set("ok", r.ok);
  emit_output(args, j, text);
  return r.ok ? 0 : 1;
}

}  // namespace dualjit::tools
