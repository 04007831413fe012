#include "tools/problems/builtin_problems.h"

#include <mutex>

namespace dualjit::tools {

void register_builtin_problems() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_problem(cfd_roe_recipe());
    register_problem(spring_recipe());
    register_problem(spring_grid_recipe());
    for (ProblemRecipe& r : kinetics_recipes()) register_problem(std::move(r));
  });
}

}  // namespace dualjit::tools
