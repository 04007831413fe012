// HostTapeColumns and DeviceTapeColumns (backends/assembly/host_tape_columns.h,
// device_tape_columns.h): the element blocks of a mechanism's (T, Y) Jacobian, component-major
// and cell-major, by the tape columns' launches equal the row groups', on the host and (the
// "gpu" suite) on the GPU, and the assemblies take them where asked, from the term's
// columns_kernel where it has one; kernels they cannot take are left to the row groups.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

#include "backends/assembly/device_element_assembly.h"
#include "backends/assembly/host_element_assembly.h"
#include "backends/assembly/host_tape_columns.h"
#include "backends/assembly/tape_columns_launches.h"
#include "examples/kinetics/rate_law_kernels.h"
#include "examples/kinetics/reactor_equations.h"
#include "examples/kinetics/units.h"
#include "jit/nvrtc_compiler.h"
#include "jit/tape_linear_outputs.h"
#include "support/gpu.h"
#include "support/test_kernels.h"

using namespace dualjit;

namespace {

// One term over n cells, a vertex each; `columns`: the term's columns_kernel.
assembly::Problem cells(std::shared_ptr<const Kernel> kernel, int64_t n,
                        std::vector<double> uniforms,
                        std::shared_ptr<const Kernel> columns = nullptr) {
  assembly::Problem p(n, kernel->n_inputs());
  assembly::Term t;
  t.name = "cells";
  t.kernel = std::move(kernel);
  t.columns_kernel = std::move(columns);
  t.elements.name = "cells";
  t.elements.k = 1;
  t.elements.conn.resize(static_cast<size_t>(n));
  std::iota(t.elements.conn.begin(), t.elements.conn.end(), 0);
  t.uniforms = std::move(uniforms);
  p.add_term(std::move(t));
  return p;
}

// Largest difference over the largest magnitude, block by block ([r][c][e]: each element's).
double worst_block_difference(const std::vector<double>& a, const std::vector<double>& b,
                              int64_t n) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (int64_t e = 0; e < n; ++e) {
    double scale = 0, diff = 0;
    for (size_t i = static_cast<size_t>(e); i < a.size(); i += static_cast<size_t>(n)) {
      scale = std::max(scale, std::abs(b[i]));
      diff = std::max(diff, std::abs(a[i] - b[i]));
    }
    worst = std::max(worst, diff / scale);
  }
  return worst;
}

// Cell-major blocks ([e][r][c]) of n elements in component-major order ([r][c][e]).
std::vector<double> component_major(const std::vector<double>& cell_major, int64_t n) {
  const size_t fs = cell_major.size() / static_cast<size_t>(n);
  std::vector<double> out(cell_major.size());
  for (size_t e = 0; e < static_cast<size_t>(n); ++e)
    for (size_t i = 0; i < fs; ++i) out[i * size_t(n) + e] = cell_major[e * fs + i];
  return out;
}

// Cell-major columns' blocks ([e][c][r], n_out rows) in cell-major order ([e][r][c]).
std::vector<double> rows_of(const std::vector<double>& columns, int64_t n, int n_out) {
  const size_t fs = columns.size() / static_cast<size_t>(n), no = size_t(n_out), ni = fs / no;
  std::vector<double> out(columns.size());
  for (size_t e = 0; e < static_cast<size_t>(n); ++e)
    for (size_t r = 0; r < no; ++r)
      for (size_t c = 0; c < ni; ++c) out[e * fs + r * ni + c] = columns[e * fs + c * no + r];
  return out;
}

// n random cells of a mechanism's (T, Y): T in 800-2500 K, positive Y summing to 1.
std::vector<double> random_cells(int64_t n, int B, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> temp(800, 2500), y(0.01, 1.0);
  std::vector<double> state(static_cast<size_t>(n * B));
  for (int64_t e = 0; e < n; ++e) {
    double sum = 0;
    state[size_t(e * B)] = temp(rng);
    for (int k = 1; k < B; ++k) sum += state[size_t(e * B + k)] = y(rng);
    for (int k = 1; k < B; ++k) state[size_t(e * B + k)] /= sum;
  }
  return state;
}

// The rate laws' kernel in `form` (rate_laws.h), at constant pressure.
std::shared_ptr<const Kernel> rates_kernel(const kinetics::Mechanism& m,
                                           kinetics::RateLawForm form) {
  return std::make_shared<const Kernel>(
      kinetics::production_rates_kernel(m, {kinetics::ReactorState::constant_pressure, form}));
}

// h2o2's cells at 2 atm with the columns' form for the tape columns, random states, and the
// row groups' component-major blocks to hold their blocks against.
struct H2o2Cells {
  assembly::Problem problem;
  std::vector<double> state, want;
};
H2o2Cells h2o2_cells(int64_t n, uint64_t seed) {
  const kinetics::Mechanism m = kinetics::load_mechanism("h2o2.yaml");
  const auto kernel = rates_kernel(m, kinetics::RateLawForm::derivatives);
  H2o2Cells c{
      cells(kernel, n, {2 * kinetics::kOneAtm}, rates_kernel(m, kinetics::RateLawForm::columns)),
      random_cells(n, kernel->n_inputs(), seed),
      {}};
  assembly::HostElementAssembly rows(c.problem, 0, 2);
  c.want = rows.element_jacobians(0, c.state, assembly::BlockOrder::ComponentMajor);
  return c;
}

}  // namespace

// The tape columns lower the term's columns_kernel where it has one: the columns' form, whose
// heat release (summed over species) they compose from the species' entries.
TEST_CASE("host tape columns: h2o2's component-major blocks equal the row groups'") {
  const kinetics::Mechanism m = kinetics::load_mechanism("h2o2.yaml");
  for (kinetics::RateLawForm form :
       {kinetics::RateLawForm::derivatives, kinetics::RateLawForm::columns}) {
    CAPTURE(kinetics::rate_law_form_name(form));
    const auto kernel = rates_kernel(m, kinetics::RateLawForm::derivatives);
    const int64_t n = 45;
    const int B = kernel->n_inputs();
    assembly::Problem p =
        cells(kernel, n, {3 * kinetics::kOneAtm},
              form == kinetics::RateLawForm::derivatives ? nullptr : rates_kernel(m, form));
    const std::vector<double> state = random_cells(n, B, 31);
    assembly::HostElementAssembly rows(p, 0, 2), chain(p, 0, 2, true);
    const std::vector<double> want =
        rows.element_jacobians(0, state, assembly::BlockOrder::ComponentMajor);
    const std::unique_ptr<assembly::HostTapeColumns> c = assembly::HostTapeColumns::make(p.term(0));
    REQUIRE(c);
    CHECK(worst_block_difference(c->run(p.term(0), state), want, n) < 1e-12);
    CHECK(worst_block_difference(
              chain.element_jacobians(0, state, assembly::BlockOrder::ComponentMajor), want, n) <
          1e-12);
    // Cell-major blocks by the columns' launches of that order, and the assembly's.
    const std::vector<double> cell = c->run(p.term(0), state, assembly::BlockOrder::CellMajor);
    CHECK(worst_block_difference(component_major(cell, n), want, n) < 1e-12);
    CHECK(chain.element_jacobians(0, state, assembly::BlockOrder::CellMajor) == cell);
    // Made from the entries that have terms of their own, fewer than the block's: every entry
    // has a part through the density's cut, but a species' rate reads few concentrations.
    const std::optional<assembly::TapeColumnsLaunches> l =
        assembly::tape_columns_launches(p.term(0));
    REQUIRE(l);
    CHECK(l->direct_size > kernel->n_outputs());
    CHECK(l->direct_size < kernel->n_outputs() * B);
    // Their CUDA forms compile (NVRTC needs no GPU).
    std::vector<const jit::LoweredKernel*> cuda = {&l->expand};
    for (const jit::LoweredKernel& k : l->columns.at(jit::ColumnStores::DirectTiles))
      cuda.push_back(&k);
    for (const jit::LoweredKernel* k : cuda) {
      CAPTURE(k->symbol);
      CHECK(jit::nvrtc_compile(k->cuda_entry, k->cuda_source,
                               jit::default_compile_options(*k, "sm_90"))
                .is_cubin);
    }
    CHECK(worst_block_difference(
              component_major(rows.element_jacobians(0, state, assembly::BlockOrder::CellMajor), n),
              want, n) == 0);
    // Cell-major columns (each block column-major) stored by the columns' launches of that
    // order (groups of their own: the same sums), the assembly's, and the row groups' (tiles,
    // transposed by the untile).
    const int no = kernel->n_outputs();
    const std::vector<double> columns =
        c->run(p.term(0), state, assembly::BlockOrder::CellMajorColumns);
    CHECK(rows_of(columns, n, no) == cell);
    CHECK(chain.element_jacobians(0, state, assembly::BlockOrder::CellMajorColumns) == columns);
    CHECK(rows_of(rows.element_jacobians(0, state, assembly::BlockOrder::CellMajorColumns), n,
                  no) == rows.element_jacobians(0, state, assembly::BlockOrder::CellMajor));
  }
}

// The columns' groups split into launches of at most launch_groups (so that ptxas, whose time
// grows faster than a launch's entries, compiles them in parallel): the launches cover the
// groups in order, and the blocks are the same however they are split.
TEST_CASE("host tape columns: the column groups in launches of at most launch_groups") {
  const int64_t n = 37;
  const H2o2Cells h = h2o2_cells(n, 41);
  const assembly::Problem& p = h.problem;
  const std::vector<double>&state = h.state, &want = h.want;
  size_t most_launches = 0;
  for (int per_launch : {1, 2, 100}) {
    CAPTURE(per_launch);
    assembly::TapeColumnsSettings settings;
    settings.group_slots = settings.component_group_slots = 60;  // h2o2's columns in 9 groups
    settings.launch_groups = per_launch;
    const auto c = assembly::HostTapeColumns::make(p.term(0), settings);
    REQUIRE(c);
    c->run(p.term(0), state);  // the component-major launches compiled
    // Each columns' launch is named by its groups, tape_columns_g<first>_<end>.
    int next = 0;
    size_t launches = 0;
    for (const cpu::CpuKernel* k : c->kernels()) {
      const std::string& symbol = k->lowered().symbol;
      const size_t at = symbol.find("tape_columns_g");
      if (at == std::string::npos) continue;
      int first = -1, end = -1;
      REQUIRE(std::sscanf(symbol.c_str() + at, "tape_columns_g%d_%d", &first, &end) == 2);
      CHECK(first == next);
      CHECK(end > first);
      CHECK(end - first <= per_launch);
      next = end;
      ++launches;
    }
    CHECK(next > 2);  // the groups, enough to split
    if (per_launch == 1) {
      CHECK(launches == size_t(next));
      most_launches = launches;
    } else {
      CHECK(launches < most_launches);
    }
    CHECK(worst_block_difference(c->run(p.term(0), state), want, n) < 1e-12);
    CHECK(worst_block_difference(
              component_major(c->run(p.term(0), state, assembly::BlockOrder::CellMajor), n), want,
              n) < 1e-12);
  }
  // The component-major launches grouped apart from the tiles (component_group_slots): both
  // read the one auxiliary array.
  assembly::TapeColumnsSettings apart;
  apart.group_slots = 60;
  apart.component_group_slots = 30;
  const auto c = assembly::HostTapeColumns::make(p.term(0), apart);
  REQUIRE(c);
  CHECK(worst_block_difference(c->run(p.term(0), state), want, n) < 1e-12);
  CHECK(worst_block_difference(
            component_major(c->run(p.term(0), state, assembly::BlockOrder::CellMajor), n), want,
            n) < 1e-12);
  size_t component = 0, direct = 0;
  for (const cpu::CpuKernel* k : c->kernels()) {
    const std::string& symbol = k->lowered().symbol;
    if (symbol.find("tape_columns_g") == std::string::npos || symbol.ends_with("_cc")) continue;
    (symbol.ends_with("_dt") ? direct : component) += 1;
  }
  CHECK(component > direct);
  assembly::TapeColumnsSettings none;
  none.launch_groups = 0;
  CHECK_THROWS_AS(assembly::HostTapeColumns::make(p.term(0), none), std::invalid_argument);
  none = {};
  none.component_group_slots = 0;
  CHECK_THROWS_AS(assembly::HostTapeColumns::make(p.term(0), none), std::invalid_argument);
  none = {};
  none.tapes_min_blocks = -1;
  CHECK_THROWS_AS(assembly::HostTapeColumns::make(p.term(0), none), std::invalid_argument);
  none = {};
  none.tile_window = -1;
  CHECK_THROWS_AS(assembly::HostTapeColumns::make(p.term(0), none), std::invalid_argument);
  for (int parts : {0, 33}) {
    none = {};
    none.aux_parts = parts;
    CHECK_THROWS_AS(assembly::HostTapeColumns::make(p.term(0), none), std::invalid_argument);
  }
  // The tapes' launch at tapes_min_blocks blocks a multiprocessor where the layout leaves ptxas
  // free, at the layout's own otherwise.
  for (int layout_blocks : {0, 2}) {
    assembly::TapeColumnsSettings s;
    s.layout.min_blocks = layout_blocks;
    const auto l = assembly::tape_columns_launches(p.term(0), s);
    REQUIRE(l);
    const std::string bounds =
        "__launch_bounds__(128, " + std::to_string(layout_blocks ? layout_blocks : 3) + ")";
    CHECK(l->tapes.cuda_source.find(bounds) != std::string::npos);
    CHECK(l->rest.cuda_source.find(bounds) != std::string::npos);
  }
}

// Cell-major columns: groups of as many columns as put a run on 32-byte sectors (h2o2's 11
// outputs: 88 bytes a column, so fours), as many fours as cell_run_bytes holds; the blocks are
// the same for any of them, and the CUDA form compiles (NVRTC needs no GPU).
TEST_CASE("host tape columns: cell-major columns stored by runs of aligned column groups") {
  const int64_t n = 45;  // a partial tile
  const H2o2Cells h = h2o2_cells(n, 43);
  const assembly::Problem& p = h.problem;
  const std::vector<double>&state = h.state, &want = h.want;
  const int no = p.term(0).kernel->n_outputs();
  REQUIRE(no == 11);
  for (int run_bytes : {1, 28 * 1024}) {
    CAPTURE(run_bytes);
    assembly::TapeColumnsSettings settings;
    settings.cell_run_bytes = run_bytes;
    settings.cell_launch_groups = 2;
    settings.group_slots = 1000;  // the runs alone make the groups
    const std::optional<assembly::TapeColumnsLaunches> l =
        assembly::tape_columns_launches(p.term(0), settings);
    REQUIRE(l);
    const std::vector<jit::LoweredKernel>& launches = l->columns.at(jit::ColumnStores::CellColumns);
    // 11 columns: groups of 4, 4, 3 in launches of two groups; of 8 and 3 in one.
    CHECK(launches.size() == (run_bytes == 1 ? 2 : 1));
    for (const jit::LoweredKernel& k : launches) {
      CHECK(k.symbol.ends_with("_cc"));
      CHECK(
          jit::nvrtc_compile(k.cuda_entry, k.cuda_source, jit::default_compile_options(k, "sm_90"))
              .is_cubin);
    }
    const auto c = assembly::HostTapeColumns::make(p.term(0), settings);
    REQUIRE(c);
    const std::vector<double> columns =
        c->run(p.term(0), state, assembly::BlockOrder::CellMajorColumns);
    CHECK(worst_block_difference(component_major(rows_of(columns, n, no), n), want, n) < 1e-12);
  }
  assembly::TapeColumnsSettings none;
  none.cell_launch_groups = 0;
  CHECK_THROWS_AS(assembly::HostTapeColumns::make(p.term(0), none), std::invalid_argument);
}

TEST_CASE("host tape columns: kernels without tapes, or not linear in them, are not taken") {
  for (bool tapes : {true, false}) {
    assembly::Term t;
    t.kernel = std::make_shared<const Kernel>(test::tape_kernel(tapes));
    t.elements.k = 1;
    t.elements.conn = {0, 1, 2};
    CHECK_FALSE(assembly::HostTapeColumns::make(t));  // its last row is a product of tapes
  }
}

TEST_CASE("dense_rest: more than half the linear rows' entries") {
  jit::JacobianPattern rest;  // 2 linear rows of 3 inputs, then a cut's row
  rest.row_ptr = {0, 3, 3, 6};
  CHECK_FALSE(assembly::dense_rest(rest, 2, 3));  // half
  rest.row_ptr = {0, 3, 4, 4};
  CHECK(assembly::dense_rest(rest, 2, 3));
  CHECK_FALSE(assembly::dense_rest(rest, 1, 7));
}

// A reactor's right-hand side keeps tapes and is linear in them, but weighs each output by a
// factor of the whole state (1/rho, 1/(rho c_p)): its rest Jacobian is dense and the row groups
// serve it; the production rates' rest is the heat release's T column.
TEST_CASE("host tape columns: a reactor's right-hand side, its rest Jacobian dense, is not taken") {
  const kinetics::Mechanism m = kinetics::load_mechanism("h2o2.yaml");
  assembly::Term t;
  t.kernel = std::make_shared<const Kernel>(
      kinetics::reactor_rhs_kernel(m, kinetics::ReactorState::constant_pressure));
  t.elements.k = 1;
  t.elements.conn = {0, 1, 2};
  const jit::TapePattern tapes = jit::tape_pattern(*t.kernel);
  REQUIRE_FALSE(tapes.tapes.empty());
  for (const jit::TapeLinearOutput& o : jit::tape_linear_outputs(*t.kernel, tapes))
    REQUIRE(o.linear);
  CHECK_FALSE(assembly::tape_columns_launches(t));
  t.kernel = rates_kernel(m, kinetics::RateLawForm::derivatives);
  CHECK(assembly::tape_columns_launches(t));
}

TEST_SUITE("gpu") {
  TEST_CASE(
      "device tape columns: GRI-3.0's and h2o2's component-major blocks equal the row groups'" *
      test::needs_gpu()) {
    for (const char* mechanism : {"h2o2.yaml", "gri30.yaml"}) {
      for (kinetics::RateLawForm form :
           {kinetics::RateLawForm::derivatives, kinetics::RateLawForm::columns}) {
        CAPTURE(mechanism);
        CAPTURE(kinetics::rate_law_form_name(form));
        const kinetics::Mechanism m = kinetics::load_mechanism(mechanism);
        const auto kernel = rates_kernel(m, kinetics::RateLawForm::derivatives);
        const int64_t n = 1000;  // a partial tile
        const int B = kernel->n_inputs();
        assembly::Problem p =
            cells(kernel, n + 7, {3 * kinetics::kOneAtm},
                  form == kinetics::RateLawForm::derivatives ? nullptr : rates_kernel(m, form));
        const std::vector<double> state = random_cells(n + 7, B, 37);
        assembly::DeviceElementOptions o;
        o.rows = 2;
        assembly::DeviceElementAssembly rows(p, o);
        o.tape_columns = true;
        assembly::DeviceElementAssembly chain(p, o);
        const std::vector<double> want =
            rows.element_jacobians(0, state, assembly::BlockOrder::ComponentMajor);
        const std::vector<double> got =
            chain.element_jacobians(0, state, assembly::BlockOrder::ComponentMajor);
        CHECK(worst_block_difference(got, want, n + 7) < 1e-12);
        // The grid in windows of 3 tiles, the last of 2 (32 tiles): the same blocks, each
        // block's tile and group from its index.
        o.tape_column_settings.tile_window = 3;
        assembly::DeviceElementAssembly windows(p, o);
        CHECK(worst_block_difference(
                  windows.element_jacobians(0, state, assembly::BlockOrder::ComponentMajor), got,
                  n + 7) < 1e-14);
        CHECK(worst_block_difference(
                  component_major(
                      windows.element_jacobians(0, state, assembly::BlockOrder::CellMajor), n + 7),
                  want, n + 7) < 1e-12);
        // Cell-major blocks: rows from the columns' direct entries by the expand launch; columns
        // (column-major blocks) stored by the columns' launches themselves, the same sums in
        // other launches (ptxas may contract them otherwise).
        const std::vector<double> cell =
            chain.element_jacobians(0, state, assembly::BlockOrder::CellMajor);
        CHECK(worst_block_difference(component_major(cell, n + 7), want, n + 7) < 1e-12);
        const int no = kernel->n_outputs();
        const std::vector<double> columns =
            chain.element_jacobians(0, state, assembly::BlockOrder::CellMajorColumns);
        CHECK(worst_block_difference(component_major(rows_of(columns, n + 7, no), n + 7), want,
                                     n + 7) < 1e-12);
        CHECK(worst_block_difference(component_major(rows_of(columns, n + 7, no), n + 7),
                                     component_major(cell, n + 7), n + 7) < 1e-14);
        // The row groups' tiles, transposed by dj_untile_cells.
        CHECK(worst_block_difference(
                  component_major(rows_of(rows.element_jacobians(
                                              0, state, assembly::BlockOrder::CellMajorColumns),
                                          n + 7, no),
                                  n + 7),
                  want, n + 7) < 1e-13);
      }
    }
  }
}
