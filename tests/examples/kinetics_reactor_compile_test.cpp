// The reactor's Jacobian as the batched ignition compiles it (GRI-3.0, constant pressure, full
// effort, row groups of 2; bench/kinetics_compile --reactor): NVRTC for sm_90, no GPU needed.
// ptxas held two of these launches to 32 registers at -O3 (jit/cuda_image.h ptxas_collapsed),
// which made the ignition's Jacobians 15% slower; none may come out so.
#include <doctest/doctest.h>

#include "examples/kinetics/mechanism.h"
#include "examples/kinetics/reactor_equations.h"
#include "jit/cuda_image.h"
#include "jit/lowering.h"

TEST_SUITE("kinetics") {
  TEST_CASE("reactor Jacobian in row groups: no launch held to 32 registers by ptxas") {
    using namespace dualjit;
    const kinetics::Mechanism m = kinetics::load_mechanism("gri30.yaml");
    const Kernel k = kinetics::reactor_rhs_kernel(m, kinetics::ReactorState::constant_pressure,
                                                  kinetics::RateLawForm::derivatives);
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
        [](const jit::LoweredKernel& l) { return jit::default_compile_options(l, "sm_90"); }, cold);
    for (size_t i = 0; i < launches.size(); ++i) {
      INFO(launches[i].symbol << ": " << images[i].ptxas.registers << " registers, "
                              << images[i].ptxas.spill_store_bytes << " B of spill stores");
      CHECK(images[i].ptxas.registers > 0);
      CHECK_FALSE(jit::ptxas_collapsed(images[i].ptxas, launches[i].options.layout));
    }
  }
}
