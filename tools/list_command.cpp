// `dualjit list`: the registered problems, then the energy applications (applications.h) and,
// with the kinetics, the ignition demo.
#include "tools/applications.h"
#include "tools/command_support.h"
#include "tools/commands.h"
#include "tools/ignition_demo_command.h"
#include "tools/steady_demo_command.h"

namespace dualjit::tools {

int list(int argc, char** argv) {
  Args args("list", "[options]",
            "Registered problems: built-in ones and those of --plugin libraries, with the\n"
            "options of their own that demo, emit, autotune, bench and cache warm take; then the\n"
            "energy applications, the ignition demo and the steady CFD demo that 'dualjit demo\n"
            "--problem NAME' runs.");
  if (!args.parse(argc, argv)) return 0;
  Table t({"problem", "modes", "size unit", "cpu size", "gpu size", "options", "origin",
           "description"});
  Json arr = Json::array();
  std::string option_notes;
  for (const ProblemRecipe* r : registered_problems()) {
    std::string options;
    Json jo = Json::array();
    for (const ProblemOption& o : r->options) {
      options += (options.empty() ? "" : " ") + o.name + " " + o.metavar;
      option_notes += "  " + r->name + " " + o.name + " " + o.metavar + ": " + o.help + "\n";
      jo.push(Json::object().set("name", o.name).set("metavar", o.metavar).set("help", o.help));
    }
    std::string modes;
    Json jm = Json::array();
    for (Mode m : r->modes) {
      modes += (modes.empty() ? "" : ",") + std::string(mode_name(m));
      jm.push(std::string(mode_name(m)));
    }
    t.row({r->name, modes, r->size_unit, std::to_string(r->cpu_size), std::to_string(r->gpu_size),
           options.empty() ? "-" : options, r->origin, r->description});
    arr.push(Json::object()
                 .set("name", r->name)
                 .set("modes", jm)
                 .set("size_unit", r->size_unit)
                 .set("cpu_size", r->cpu_size)
                 .set("gpu_size", r->gpu_size)
                 .set("options", jo)
                 .set("origin", r->origin)
                 .set("description", r->description));
  }
  Table at({"application", "size", "mesh", "description"});
  Json apps = Json::array();
  for (const Application& a : applications()) {
    at.row({a.name, a.size, a.takes_mesh ? "--mesh or built-in" : "built-in", a.description});
    apps.push(Json::object()
                  .set("name", a.name)
                  .set("size", a.size)
                  .set("takes_mesh", a.takes_mesh)
                  .set("description", a.description));
  }
  if (ignition_demo_available()) {
    const std::string size = "reactors (16 on the CPU, 100k on a GPU)";
    at.row({kIgnitionDemo, size, "-", ignition_demo_description()});
    apps.push(Json::object()
                  .set("name", kIgnitionDemo)
                  .set("size", size)
                  .set("takes_mesh", false)
                  .set("description", ignition_demo_description()));
  }
  {
    const std::string size = "12N x 2 x 4N cells (N = 2 on the CPU, 4 on a GPU)";
    at.row({kSteadyDemo, size, "built-in", steady_demo_description()});
    apps.push(Json::object()
                  .set("name", kSteadyDemo)
                  .set("size", size)
                  .set("takes_mesh", false)
                  .set("description", steady_demo_description()));
  }
  if (!option_notes.empty())
    option_notes = "\nproblem options (demo, emit, autotune, bench, cache warm):\n" + option_notes;
  emit_output(
      args, Json::object().set("problems", arr).set("applications", apps),
      t.str() + option_notes + "\napplications ('dualjit demo --problem NAME'):\n" + at.str());
  return 0;
}

}  // namespace dualjit::tools
