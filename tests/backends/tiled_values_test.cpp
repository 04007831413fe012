// LoweringOptions::tiled_values: a kernel that stores its values in 32-element tiles, [tile]
// [output][element of the tile], stores what it stores element-major, on the CPU backend, in
// every mode that has values, and whole tiles only where elements are.
#include <doctest/doctest.h>

#include <cmath>

#include "backends/cpu/cpu_kernel.h"
#include "support/element_problem.h"
#include "support/test_kernels.h"

using namespace dualjit;

TEST_CASE("tiled values: the Arrhenius kernel's values equal the element-major ones") {
  const Kernel k = test::arrhenius_kernel();
  const int no = k.n_outputs();
  for (const Mode mode : {Mode::Value, Mode::Jacobian}) {
    CAPTURE(mode_name(mode));
    jit::LoweringOptions o;
    o.mode = mode;
    const cpu::CpuKernel plain(jit::lower(k, o));
    o.tiled_values = true;
    const cpu::CpuKernel tiled(jit::lower(k, o));
    CHECK(tiled.lowered().symbol != plain.lowered().symbol);
    const int64_t n = 45;  // a partial last tile
    const test::ElementProblem pr = test::make_problem(k, plain.lowered(), n, 29);
    test::HostOutputs want, got;
    plain.run(test::host_args(pr, plain.lowered(), want).args());
    tiled.run(test::host_args(pr, tiled.lowered(), got).args());
    REQUIRE(got.values.size() == size_t(64 * no));
    for (int64_t e = 0; e < 64; ++e) {
      for (int r = 0; r < no; ++r) {
        const double v = got.values[size_t((e / 32) * 32 * no + r * 32 + e % 32)];
        if (e < n) {
          CHECK(v == want.values[size_t(e * no + r)]);
        } else {
          CHECK(std::isnan(v));  // the tile's padding: no element, no store
        }
      }
    }
    CHECK(got.first == want.first);
  }
}
