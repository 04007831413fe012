// The ignition demo's computation (examples/kinetics/ignition_demo.h) in-process, on the CPU
// with h2o2: reactors that do not ignite by the end time (tau NaN, counted, still ok), the table
// of a small batch, the files, a Python that fails, and the refusals. The command around it and
// the comparison with Cantera are tests/tools/ignition_demo_test.cpp's.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "examples/kinetics/ignition_demo.h"
#include "examples/kinetics/mechanism_error.h"

using namespace dualjit;
using namespace dualjit::kinetics;

namespace {

IgnitionDemoOptions h2o2_options() {
  IgnitionDemoOptions o;
  o.backend = assembly::Backend::Cpu;
  o.mechanism = "h2o2.yaml";
  o.composition = "H2:2, O2:1, AR:3.76";
  o.pressure = kOneAtm;
  o.write_files = false;
  return o;
}

}  // namespace

TEST_SUITE("kinetics") {
  TEST_CASE("ignition demo: reactors that do not ignite by t_end have no tau and are counted") {
    IgnitionDemoOptions o = h2o2_options();
    // 850 and 925 K take far longer than 1 ms at 1 atm (900 K: 0.13 s); 1000 K: 0.234 ms.
    o.reactors = 3;
    o.T_lo = 850;
    o.T_hi = 1000;
    o.t_end = 1e-3;
    const IgnitionDemoReport r = run_ignition_demo(o);
    REQUIRE(r.T0.size() == 3);
    CHECK(r.T0[1] == doctest::Approx(925));
    CHECK(r.backend == "cpu");
    CHECK(r.phase == "ohmech");
    CHECK(r.failed == 0);
    CHECK(r.not_ignited == 2);
    CHECK(std::isnan(r.tau[0]));
    CHECK(std::isnan(r.tau[1]));
    CHECK(r.tau[2] == doctest::Approx(2.3441501992e-4).epsilon(5e-3));
    CHECK(r.T_final[0] - r.T0[0] < kIgnitionRise);
    CHECK(r.T_final[2] > 2500);
    REQUIRE(r.table.size() == 3);  // 13 temperatures over three reactors: each once
    for (int k = 0; k < 3; ++k) CHECK(r.table[k].reactor == k);
    CHECK(r.cantera.empty());
    CHECK(r.files.empty());
    CHECK(r.ok);
  }

  TEST_CASE("ignition demo: files in the output folder; a Python that fails is reported") {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / "dualjit-ignition-demo-test";
    std::filesystem::remove_all(dir);
    IgnitionDemoOptions o = h2o2_options();
    o.reactors = 2;
    o.T_lo = 1000;
    o.T_hi = 1200;
    o.t_end = 1e-3;
    o.write_files = true;
    o.output_dir = dir / "out";
    o.python = "/bin/false";
    const IgnitionDemoReport r = run_ignition_demo(o);
    CHECK(r.cantera == "Cantera failed (/bin/false, exit 1): plot without it");
    CHECK_FALSE(r.cantera_ran);
    REQUIRE(r.files.size() == 2);
    CHECK(r.files[0] == dir / "out" / "ignition.csv");
    CHECK(r.files[1] == dir / "out" / "ignition.png");
    for (const auto& f : r.files) CHECK(std::filesystem::file_size(f) > 0);
    CHECK(r.ok);
    o.python = (dir / "no-such-python").string();
    CHECK(run_ignition_demo(o).cantera == "Cantera not found (" + o.python + "): plot without it");
    std::filesystem::remove_all(dir);
  }

  TEST_CASE("ignition demo: bad options throw MechanismError naming what is wrong") {
    IgnitionDemoOptions o = h2o2_options();
    o.composition = "H2:2, O2:1, XE:3";
    CHECK_THROWS_WITH_AS(run_ignition_demo(o), doctest::Contains("no species 'XE'"),
                         MechanismError);
    o = h2o2_options();
    o.T_lo = 1500;
    o.T_hi = 900;
    CHECK_THROWS_WITH_AS(run_ignition_demo(o), doctest::Contains("1500-900 K is reversed"),
                         MechanismError);
    o = h2o2_options();
    o.pressure = 0;
    CHECK_THROWS_WITH_AS(run_ignition_demo(o),
                         doctest::Contains("the pressure must be finite and positive"),
                         MechanismError);
    o = h2o2_options();
    o.t_end = std::nan("");
    CHECK_THROWS_WITH_AS(run_ignition_demo(o), doctest::Contains("the end time"), MechanismError);
  }
}
