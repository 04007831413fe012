// The reactor's Jacobian as the batched ignition compiles it (full effort, row groups of 2;
// bench/kinetics_compile --reactor): NVRTC for sm_90, no GPU needed. At -O3 ptxas held two of
// GRI-3.0's constant-pressure launches to 32 registers (jit/cuda_image.h ptxas_collapsed),
// which made the ignition's Jacobians 15% slower, and the first of h2o2's constant-volume ones,
// whose chunk alone spilled; none may come out so.
#include <doctest/doctest.h>

#include <utility>

#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/reactor_equations.h"
#include "jit/cuda_image.h"
#include "jit/lowering.h"

TEST_SUITE("kinetics") {
  TEST_CASE("reactor Jacobian in row groups: no launch held to 32 registers by ptxas") {
    using namespace dualjit;
    for (const auto& [file, state] :
         {std::pair{"gri30.yaml", kinetics::ReactorState::constant_pressure},
          std::pair{"h2o2.yaml", kinetics::ReactorState::constant_volume}}) {
      CAPTURE(file);
      const kinetics::Mechanism m = kinetics::load_mechanism(file);
      const Kernel k = kinetics::reactor_rhs_kernel(m, state, kinetics::RateLawForm::derivatives);
      jit::LoweringOptions o;
      o.mode = Mode::Jacobian;
      o.width = 0;
      o.rows = 2;
      o.compile_effort = jit::CompileEffort::Full;
      const std::vector<jit::LoweredKernel> launches = jit::lower_launches(k, o);
      REQUIRE(launches.size() > 1);
      jit::KernelCache cold(std::nullopt);  // every image compiled now, its report fresh
      const std::vector<jit::CudaImage> images = jit::cuda_images(
          launches,
          [](const jit::LoweredKernel& l) { return jit::default_compile_options(l, "sm_90"); },
          cold);
      for (size_t i = 0; i < launches.size(); ++i) {
        const jit::PtxasReport& r = images[i].ptxas;
        INFO(launches[i].symbol << ": " << r.registers << " registers, " << r.spill_store_bytes
                                << " + " << r.function_spill_store_bytes << " B of spill stores");
        CHECK(r.registers > 0);
        CHECK_FALSE(jit::ptxas_collapsed(r, launches[i].options.layout));
      }
    }
  }
}
