// The reactor's Jacobian as the batched ignition compiles it (full effort, row groups of 2;
// bench/kinetics_compile --reactor): NVRTC for sm_90, no GPU needed. At -O3 ptxas held two of
// GRI-3.0's constant-pressure launches to 32 registers (jit/cuda_image.h ptxas_collapsed),
// which made the ignition's Jacobians 15% slower, and the first of h2o2's constant-volume ones,
// whose chunk alone spilled; none may come out so. ReactorOdes asks for one block per SM
// (reactor_odes_assembler_options), and then no launch may be held below the register file's
// three quarters while it spills.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "examples/kinetics/reactor_cells.h"
#include "examples/kinetics/reactor_equations.h"
#include "examples/kinetics/reactor_odes.h"
#include "jit/cuda_image.h"
#include "jit/lowering.h"

namespace {

using namespace dualjit;

// The reactor's Jacobian in row groups of 2 at full effort, each launch compiled now (NVRTC,
// sm_90) and checked by `check`.
template <class Check>
void compile_reactor_jacobian(const char* file, kinetics::ReactorState state, int min_blocks,
                              Check check) {
  const kinetics::Mechanism m = kinetics::load_mechanism(file);
  const Kernel k = kinetics::reactor_rhs_kernel(m, state, kinetics::RateLawForm::derivatives);
  jit::LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.width = 0;
  o.rows = 2;
  o.compile_effort = jit::CompileEffort::Full;
  o.layout.min_blocks = min_blocks;
  const std::vector<jit::LoweredKernel> launches = jit::lower_launches(k, o);
  // h2o2's, with its rates of progress kept as tapes, is one launch.
  REQUIRE(!launches.empty());
  jit::KernelCache cold(std::nullopt);  // every image compiled now, its report fresh
  const std::vector<jit::CudaImage> images = jit::cuda_images(
      launches,
      [](const jit::LoweredKernel& l) { return jit::default_compile_options(l, "sm_90"); }, cold);
  for (size_t i = 0; i < launches.size(); ++i) {
    const jit::PtxasReport& r = images[i].ptxas;
    INFO(launches[i].symbol << ": " << r.registers << " registers, " << r.spill_store_bytes << " + "
                            << r.function_spill_store_bytes << " B of spill stores");
    CHECK(r.registers > 0);
    check(r, launches[i]);
  }
}

}  // namespace

TEST_SUITE("kinetics") {
  TEST_CASE(
      "Jacobians with tapes: at full effort the rows take as few launches as keep each "
      "no larger than the tapes'") {
    const kinetics::Mechanism m = kinetics::load_mechanism("gri30.yaml");
    // The reactor's right-hand side (the ignition's) and the production rates (ReactorCells').
    for (const Kernel& k :
         {kinetics::reactor_rhs_kernel(m, kinetics::ReactorState::constant_pressure,
                                       kinetics::RateLawForm::derivatives),
          kinetics::production_rates_kernel(m, kinetics::ReactorCellsOptions{}.rate_law)}) {
      for (const bool sparse : {false, true}) {
        CAPTURE(k.name());
        CAPTURE(sparse);
        jit::LoweringOptions o;
        o.mode = Mode::Jacobian;
        o.width = 0;
        o.rows = 2;
        o.sparse_jacobian = sparse;
        o.compile_effort = jit::CompileEffort::Full;
        const std::vector<jit::LoweredKernel> full = jit::lower_launches(k, o);
        REQUIRE(full.size() >= 2);
        CHECK(full.front().writes_tape);
        size_t rows = 0;
        for (size_t i = 1; i < full.size(); ++i) {
          CHECK_FALSE(full[i].writes_tape);
          rows += full[i].statements;
        }
        const size_t tape = full.front().statements;
        const std::string what = k.name() + (sparse ? ", sparse" : "");
        MESSAGE(what << ": tapes' launch " << tape << " statements, rows " << rows << " in "
                     << full.size() - 1 << " launches");
        CHECK(full.size() == 1 + (rows + tape - 1) / tape);
        CHECK(full.size() < size_t(jit::kMaxLaunches));
        // At the default effort the rows' launches stay many and small: each under kLargeKernel
        // statements compiles at -O3 rather than with fast-compile.
        o.compile_effort = jit::CompileEffort::Auto;
        CHECK(jit::lower_launches(k, o).size() == size_t(jit::kMaxLaunches));
      }
    }
  }

  TEST_CASE("reactor Jacobian in row groups: no launch held to 32 registers by ptxas") {
    for (const auto& [file, state] :
         {std::pair{"gri30.yaml", kinetics::ReactorState::constant_pressure},
          std::pair{"h2o2.yaml", kinetics::ReactorState::constant_volume}}) {
      CAPTURE(file);
      compile_reactor_jacobian(file, state, 0,
                               [](const jit::PtxasReport& r, const jit::LoweredKernel& l) {
                                 CHECK_FALSE(jit::ptxas_collapsed(r, l.options.layout));
                               });
    }
  }

  TEST_CASE(
      "reactor Jacobian in row groups, ReactorOdes' layout: every spilling launch uses "
      "most of the register file") {
    const int min_blocks = kinetics::reactor_odes_assembler_options().element_layout.min_blocks;
    REQUIRE(min_blocks == 1);
    compile_reactor_jacobian("gri30.yaml", kinetics::ReactorState::constant_pressure, min_blocks,
                             [](const jit::PtxasReport& r, const jit::LoweredKernel&) {
                               if (r.spill_store_bytes + r.function_spill_store_bytes > 0)
                                 CHECK(r.registers >= 192);
                             });
  }
}
