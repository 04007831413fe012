// Without yaml-cpp the kinetics (and so its problem, kinetics_problem.cpp) is not built.
#include "tools/problems/builtin_problems.h"

namespace dualjit::tools {

std::vector<ProblemRecipe> kinetics_recipes() {
  return {};
}

}  // namespace dualjit::tools
