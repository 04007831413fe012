// `dualjit list`: the registered problems, then the energy applications (applications.h).
#include "tools/applications.h"
#include "tools/command_support.h"
#include "tools/commands.h"

namespace dualjit::tools {

int list(int argc, char** argv) {
  Args args("list", "[options]",
            "Registered problems: built-in ones and those of --plugin libraries; then the\n"
            "energy applications that 'dualjit demo --problem NAME' runs.");
  if (!args.parse(argc, argv)) return 0;
  Table t({"problem", "modes", "size unit", "cpu size", "gpu size", "origin", "description"});
  Json arr = Json::array();
  for (const ProblemRecipe* r : registered_problems()) {
    std::string modes;
    Json jm = Json::array();
    for (Mode m : r->modes) {
      modes += (modes.empty() ? "" : ",") + std::string(mode_name(m));
      jm.push(std::string(mode_name(m)));
    }
    t.row({r->name, modes, r->size_unit, std::to_string(r->cpu_size), std::to_string(r->gpu_size),
           r->origin, r->description});
    arr.push(Json::object()
                 .set("name", r->name)
                 .set("modes", jm)
                 .set("size_unit", r->size_unit)
                 .set("cpu_size", r->cpu_size)
                 .set("gpu_size", r->gpu_size)
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
  emit_output(args, Json::object().set("problems", arr).set("applications", apps),
              t.str() + "\napplications ('dualjit demo --problem NAME'):\n" + at.str());
  return 0;
}

}  // namespace dualjit::tools
