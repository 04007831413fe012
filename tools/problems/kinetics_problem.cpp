// kinetics: a mechanism's rate laws per cell (examples/kinetics; GRI-3.0 unless --mechanism
// FILE[:PHASE] names another): the net production rates and heat release of a (T, Y) state at
// 10 atm, and their Jacobian, over random hot mixtures. As ReactorCells builds them, the value
// mode runs the rate laws' graph for values, the Jacobian the one for derivatives (rate_laws.h
// RateLawForm). Built only with yaml-cpp (the mechanism loader);
// kinetics_problem_absent.cpp stands in without it.
#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "examples/kinetics/units.h"
#include "tools/problems/builtin_problems.h"
#include "tools/registry/element_problem.h"

namespace dualjit::tools {
namespace {

constexpr const char* kMechanismOption = "--mechanism";
constexpr const char* kDefaultMechanism = "gri30.yaml";

std::unique_ptr<ProblemInstance> build_kinetics(int64_t n_cells,
                                                const ProblemOptionValues& options) {
  n_cells = std::max<int64_t>(n_cells, 1);
  const auto given = options.find(kMechanismOption);
  const bool named = given != options.end();
  if (named && given->second.empty())
    throw std::invalid_argument(std::string(kMechanismOption) + ": empty; give FILE or FILE:PHASE");
  // The loader finds a bare name as Cantera does (data_path.h), splits FILE:PHASE, and throws
  // MechanismError naming the file for a missing file, an unknown or non-ideal-gas phase.
  const kinetics::Mechanism m = kinetics::load_mechanism(named ? given->second : kDefaultMechanism);
  const int ns = static_cast<int>(m.species.size());
  ElementProblemData d;
  d.n_nodes = n_cells;
  d.field_width = ns + 1;
  d.vertices = 1;
  d.conn.resize(n_cells);
  for (int64_t c = 0; c < n_cells; ++c) d.conn[c] = static_cast<int32_t>(c);
  // T 1000-2500 K; Y log-uniform over three decades, normalised: every species present.
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> T(1000.0, 2500.0), e(-3.0, 0.0);
  d.field.reserve(n_cells * (ns + 1));
  std::vector<double> y(ns);
  for (int64_t c = 0; c < n_cells; ++c) {
    double sum = 0;
    for (double& v : y) sum += v = std::pow(10.0, e(rng));
    d.field.push_back(T(rng));
    for (double v : y) d.field.push_back(v / sum);
  }
  d.uniforms = {10 * kinetics::kOneAtm};
  // The resolved path says which file a bare name found (working directory, data path, ...).
  const std::string mechanism =
      named ? "mechanism " + m.file + ", phase " + m.phase + " " : std::string("GRI-3.0 ");
  d.summary = mechanism + "(" + std::to_string(ns) + " species, " +
              std::to_string(m.reactions.size()) + " reactions): " + std::to_string(n_cells) +
              " cells, (T, Y) at 10 atm";
  kinetics::RateLawOptions values;
  values.form = kinetics::RateLawForm::values;
  return make_element_problem(
      std::make_shared<Kernel>(kinetics::production_rates_kernel(m)), std::move(d),
      std::make_shared<Kernel>(kinetics::production_rates_kernel(m, values)));
}

}  // namespace

std::vector<ProblemRecipe> kinetics_recipes() {
  ProblemRecipe r;
  r.name = "kinetics";
  r.description =
      "a mechanism's rate laws per cell (GRI-3.0; --mechanism): production rates and heat "
      "release, and their (T, Y) Jacobian";
  r.size_unit = "cells";
  r.modes = {Mode::Jacobian, Mode::Value};
  r.cpu_size = 2000;
  r.gpu_size = 100000;
  r.small_size = 16;
  r.options = {{kMechanismOption, "FILE[:PHASE]",
                "Cantera YAML mechanism and ideal-gas phase (default gri30.yaml, first phase); "
                "a bare name is searched in ., DUALJIT_DATA_PATH, data/mechanisms"}};
  r.build_with_options = build_kinetics;
  return {r};
}

}  // namespace dualjit::tools
