// The energy applications of examples/mesh_energy (demo.h): one row each, naming the demo that
// `dualjit demo --problem NAME` runs and `dualjit list` shows. Adding an application is adding
// a row here.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "examples/mesh_energy/demo.h"

namespace dualjit::tools {

struct Application {
  std::string name;         // command-line name, e.g. "cloth"
  std::string description;  // one line
  std::string size;         // what --size sets
  bool takes_mesh = false;  // whether --mesh PATH is read
  std::function<mesh_energy::DemoReport(const mesh_energy::DemoOptions&)> run;
};

// In the order `dualjit list` shows them.
const std::vector<Application>& applications();
// The application named `name`, or null when there is none.
const Application* find_application(const std::string& name);

}  // namespace dualjit::tools
