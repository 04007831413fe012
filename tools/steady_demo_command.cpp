#include "tools/steady_demo_command.h"

#include <cstdio>
#include <string>

#include "examples/cfd/steady_demo.h"
#include "tools/command_support.h"

namespace dualjit::tools {
namespace {

// Options of the kernel problems and the energy applications that mean nothing here.
constexpr const char* kNotHere[] = {"--mode",  "--repeats", "--elements", "--set",
                                    "--width", "--layout",  "--mesh"};

}  // namespace

std::string steady_demo_description() {
  return "steady Euler flow through a channel with a bump (Mach 0.5): pseudo-transient Newton-"
         "Krylov against explicit stepping; .vtu and residual plot";
}

int steady_demo(const Args& args) {
  for (const char* o : kNotHere)
    if (args.has(o)) throw UsageError(std::string(o) + " does not apply to the demo cfd-steady");
  refuse_problem_options(args, {}, "the demo cfd-steady");
  std::string why_cpu;
  const Target target = pick_target(args.has("--cpu"), &why_cpu);
  cfd::SteadyDemoOptions o;
  o.backend = target == Target::Cuda ? assembly::Backend::Cuda : assembly::Backend::Cpu;
  o.size = static_cast<int>(args.get_int("--size", target == Target::Cuda ? 4 : 2));
  if (o.size < 1) throw UsageError("--size must be at least 1");
  o.max_iterations = static_cast<int>(args.get_int("--max-iterations", o.max_iterations));
  if (o.max_iterations < 1) throw UsageError("--max-iterations must be at least 1");
  o.output_dir = args.get("--output");
  const bool json = args.has("--json");
  if (!json) {
    std::printf("backend: %s\n", target == Target::Cuda
                                     ? "CUDA (assembly, GMRES and state on the GPU)"
                                     : ("CPU (host compiler + OpenMP); " + why_cpu).c_str());
    std::fflush(stdout);
  }
  const cfd::SteadyDemoReport r = cfd::run_steady_demo(o);
  const double implicit_final = r.implicit.final_residual / r.implicit.initial_residual;
  std::string text = "cfd-steady: " + r.summary + "\n\nimplicit:\n" +
                     cfd::format_history(r.implicit) +
                     fmt("%zu steps in %.3f s\n", r.implicit.history.size(), r.implicit_seconds);
  Json j = Json::object();
  if (!r.explicit_steps.history.empty()) {
    const double e = r.explicit_steps.final_residual / r.explicit_steps.initial_residual;
    text +=
        fmt("\nexplicit local time stepping (CFL 0.9): |R|/|R0| %.3e after %zu steps in %.3f s%s\n",
            e, r.explicit_steps.history.size(), r.explicit_seconds,
            r.explicit_steps.converged ? "" : " (capped)");
    j.set("explicit_steps", static_cast<int64_t>(r.explicit_steps.history.size()))
        .set("explicit_relative_residual", e)
        .set("explicit_converged", r.explicit_steps.converged);
  }
  Table ft({"fact", "value"});
  ft.row({"converged (|R| <= 1e-10 |R0|)", r.implicit.converged ? "yes" : "no"});
  ft.row({"implicit steps", std::to_string(r.implicit.history.size())});
  ft.row({"entropy error (RMS of s/s_inf - 1)", fmt("%.3e", r.entropy_error)});
  text += "\n" + ft.str() + "\nfiles:\n";
  Json files = Json::array();
  for (const auto& f : r.files) {
    text += "  " + f.string() + "\n";
    files.push(f.string());
  }
  text += r.ok ? "demo: ok\n" : "demo: FAILED\n";
  j.set("name", kSteadyDemo)
      .set("backend", target == Target::Cuda ? "cuda" : "cpu")
      .set("summary", r.summary)
      .set("nodes", r.nodes)
      .set("converged", r.implicit.converged)
      .set("iterations", static_cast<int64_t>(r.implicit.history.size()))
      .set("relative_residual", implicit_final)
      .set("seconds", r.implicit_seconds)
      .set("entropy_error", r.entropy_error)
      .set("files", files)
      .set("ok", r.ok);
  emit_output(args, j, text);
  return r.ok ? 0 : 1;
}

}  // namespace dualjit::tools
