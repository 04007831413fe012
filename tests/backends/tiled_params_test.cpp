// LoweringOptions::tiled_params (jit/driver.h TiledParams): a kernel that reads its params from
// 32-element tiles at given slots computes what it computes from element-major params, on the
// CPU backend; slots outside the tile row are refused, naming the kernel and the param.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "backends/cpu/cpu_kernel.h"
#include "jit/tape_pattern.h"
#include "support/element_problem.h"
#include "support/test_kernels.h"

using namespace dualjit;

TEST_CASE("tiled params: the Arrhenius kernel's results equal the element-major params'") {
  const Kernel k = test::arrhenius_kernel();
  const int np = k.n_params();
  REQUIRE(np == 3);
  jit::LoweringOptions o;
  o.mode = Mode::Jacobian;
  const cpu::CpuKernel plain(jit::lower(k, o));
  // A tile row of 7 slots, the params scattered among slots the kernel must not read.
  o.tiled_params.slots = 7;
  o.tiled_params.at = {5, 1, 3};
  const cpu::CpuKernel tiled(jit::lower(k, o));
  CHECK(tiled.lowered().symbol != plain.lowered().symbol);
  const int64_t n = 77;  // a partial last tile
  const test::ElementProblem pr = test::make_problem(k, plain.lowered(), n, 19);
  std::vector<double> tiles(static_cast<size_t>(jit::tape_doubles(7, n)), std::nan(""));
  for (int64_t e = 0; e < n; ++e)
    for (int i = 0; i < np; ++i)
      tiles[size_t((e / 32) * 32 * 7 + o.tiled_params.at[size_t(i)] * 32 + e % 32)] =
          pr.params[size_t(e * np + i)];
  test::HostOutputs want, got;
  plain.run(test::host_args(pr, plain.lowered(), want).args());
  jit::ElementLaunch a = test::host_args(pr, tiled.lowered(), got);
  a.params = tiles.data();
  tiled.run(a.args());
  CHECK(got.values == want.values);
  CHECK(got.first == want.first);
  // A derivative with respect to T at random states: the params entered.
  CHECK(std::abs(want.first[0]) > 0);

  o.tiled_params.at = {5, 7, 3};
  try {
    (void)jit::lower(k, o);
    FAIL("a param outside the tile row was accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("arrhenius") != std::string::npos);
    CHECK(std::string(e.what()).find("param 1 at slot 7") != std::string::npos);
  }
  o.tiled_params.at = {5, 1};
  CHECK_THROWS_AS((void)jit::lower(k, o), std::invalid_argument);
}
