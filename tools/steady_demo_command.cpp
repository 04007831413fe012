#include "tools/steady_demo_command.h"

#include <cstdio>
#include <string>

#include "examples/cfd/steady_demo.h"
#include "tools/command_support.h"
#include "tools/petsc_demo_command.h"

namespace dualjit::tools {
namespace {

// Options of the kernel problems and the energy applications that mean nothing here.
constexpr const char* kNotHere[] = {"--mode", "--repeats", "--elements",
                                    "--set",  "--width",   "--layout"};

constexpr const char* kOwn[] = {"--geometry", "--mach", "--explicit-steps", "--petsc"};

// Prints the report (rank 0's, in a distributed run); the exit code.
int report(const Args& args, const cfd::SteadyDemoReport& r);

}  // namespace

void add_steady_options(Args& args) {
  args.option("--geometry", "NAME", "cfd-steady: sphere (default, meshed by gmsh) or bump")
      .option("--mach", "M", "cfd-steady: free-stream Mach number (0.3 sphere, 0.5 bump)")
      .option("--explicit-steps", "N", "cfd-steady: cap of the explicit comparison (3000; 0: none)")
      .flag("--petsc",
            "cfd-steady: solve over the MPI ranks through PETSc (implied under mpirun; "
            "PETSc options from PETSC_OPTIONS)");
}

void refuse_steady_options(const Args& args, const std::string& problem) {
  for (const char* o : kOwn)
    if (args.has(o))
      throw UsageError(std::string(o) + " applies to the demo cfd-steady, not to " + problem);
}

std::string steady_demo_description() {
  return "steady Euler flow over a sphere (Gmsh, Mach 0.3) or through a channel with a bump: "
         "pseudo-transient Newton-Krylov against explicit stepping; .vtu and residual plot";
}

int steady_demo(const Args& args) {
  for (const char* o : kNotHere)
    if (args.has(o)) throw UsageError(std::string(o) + " does not apply to the demo cfd-steady");
  refuse_problem_options(args, {}, "the demo cfd-steady");
  std::string why_cpu;
  const Target target = pick_target(args.has("--cpu"), &why_cpu);
  cfd::SteadyDemoOptions o;
  o.backend = target == Target::Cuda ? assembly::Backend::Cuda : assembly::Backend::Cpu;
  const std::string geometry = args.get("--geometry", "sphere");
  if (geometry != "sphere" && geometry != "bump")
    throw UsageError("--geometry must be sphere or bump, not '" + geometry + "'");
  o.geometry = geometry == "bump" ? cfd::SteadyGeometry::bump : cfd::SteadyGeometry::sphere;
  o.mesh = args.get("--mesh");
  if (!o.mesh.empty() && args.has("--geometry"))
    throw UsageError("--mesh and --geometry exclude each other");
  o.size = static_cast<int>(args.get_int("--size", target == Target::Cuda ? 4 : 2));
  if (o.size < 1) throw UsageError("--size must be at least 1");
  if (args.has("--mach")) {
    o.mach = args.get_double("--mach", 0);
    if (!(o.mach > 0 && o.mach <= 0.8)) throw UsageError("--mach must be in (0, 0.8]");
  }
  o.max_iterations = static_cast<int>(args.get_int("--max-iterations", o.max_iterations));
  o.explicit_cap = static_cast<int>(args.get_int("--explicit-steps", o.explicit_cap));
  if (o.explicit_cap < 0) throw UsageError("--explicit-steps must be at least 0");
  if (o.max_iterations < 1) throw UsageError("--max-iterations must be at least 1");
  o.output_dir = args.get("--output");
  const bool json = args.has("--json");
  // Started by an MPI launcher: a distributed run, also at one rank.
  if (args.has("--petsc") || launcher_ranks() > 0) {
    return petsc_steady_demo(o, [&](const cfd::SteadyDemoReport& r) { return report(args, r); });
  }
  if (!json) {
    std::printf("backend: %s\n", target == Target::Cuda
                                     ? "CUDA (assembly, GMRES and state on the GPU)"
                                     : ("CPU (host compiler + OpenMP); " + why_cpu).c_str());
    std::fflush(stdout);
  }
  return report(args, cfd::run_steady_demo(o));
}

namespace {

int report(const Args& args, const cfd::SteadyDemoReport& r) {
  const double implicit_final = r.implicit.final_residual / r.implicit.initial_residual;
  std::string text = "cfd-steady: " + r.summary + "\n\nimplicit:\n" +
                     cfd::format_history(r.implicit) +
                     fmt("%zu steps in %.3f s\n", r.implicit.history.size(), r.implicit_seconds);
  Json j = Json::object();
  if (!r.explicit_steps.history.empty()) {
    const double e = r.explicit_steps.final_residual / r.explicit_steps.initial_residual;
    text += fmt(
        "\nexplicit local time stepping (CFL 0.9): |R|/|R0| %.3e after %d steps in %.3f s%s\n", e,
        r.explicit_steps.steps, r.explicit_seconds, r.explicit_steps.converged ? "" : " (capped)");
    j.set("explicit_steps", static_cast<int64_t>(r.explicit_steps.steps))
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
      .set("backend", r.gpu ? "cuda" : "cpu")
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

}  // namespace

}  // namespace dualjit::tools
