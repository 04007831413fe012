// Internal to assembly::Assembler (assembler.h), which is the way to use it.
// A Problem's outputs computed on the GPU: total energy, gradient, Hessian (symmetric block CSR,
// full or upper), Hessian-vector products without forming the Hessian, residual, general
// block-CSR Jacobian and dense per-element Jacobians.
//
// With ElementStrategy::Gather (element_rules.h), each term's element kernel (jit/lowering.h,
// the options of element_lowering) writes element-major local results on the device; small
// library kernels (assembly_source()) then sum them by gather, never by atomics: per node row
// over the node's incident (element, local vertex) pairs, per matrix block over the (element,
// a, b) pairs that land in it, both in a fixed order precomputed on the host; the energy by a
// fixed sequence of strided partial sums. Results are therefore bit-identical from run to run.
// With ElementStrategy::Scatter the residual, gradient, H v, Hessian and Jacobian are summed
// by the element kernels themselves with atomics (strategies/element_scatter.cpp); with
// NodeGather by one thread per node over its incident elements (strategies/node_gather.cpp,
// bit-identical repeats); the energy and the element blocks are computed as with Gather. All
// agree with the host reference to round-off (the order of additions differs).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "backends/assembly/device_tape_columns.h"
#include "backends/assembly/element_rules.h"
#include "backends/assembly/problem.h"
#include "backends/assembly/strategies/in_place_strategy.h"
#include "backends/cuda/cuda_kernel.h"
#include "backends/cuda/source_module.h"
#include "backends/mesh/incidence.h"
#include "jit/element_driver.h"
#include "jit/hessian_projection.h"

namespace dualjit::assembly {

// --- Gather tables, built on the host once per term and pattern (public for tests) ----------
// (RowGather and EntryGather: element_rules.h)

// The inverse of BlockPattern::element_slots for one element set: block `slot` sums the element
// pairs item[ptr[slot] .. ptr[slot + 1]), each item = (e k + a) k + b, ascending (element, then
// a, then b: the order the host assembly adds them). Pairs flagged transposed (Symmetry::Upper)
// are left out, as mesh::add_element_block leaves them out. Throws MeshError for a pattern
// without diagonal blocks.
struct SlotGather {
  std::vector<int64_t> ptr;   // n_blocks + 1
  std::vector<int64_t> item;  // pairs that land in a stored block
};
SlotGather slot_gather(const mesh::BlockPattern& pattern, size_t set_index);

// Index arrays of a pattern as cuSPARSE BSR wants them: int32 row pointer (n_nodes + 1) and
// column indices (n_blocks). Throws MeshError when the pattern exceeds int32 indices.
struct BsrIndex {
  std::vector<int32_t> row_ptr, col_idx;
};
BsrIndex bsr_index(const mesh::BlockPattern& pattern);

// How the GPU sums n values (an energy), in one launch and an order fixed by n alone, so that
// repeats are bit-identical: sum_groups(n) groups of kSumLanes lanes; lane j of group g sums
// entries g * kSumLanes + j, then every groups * kSumLanes further, in ascending order; each
// group's lanes are combined pairwise (lane j += lane j + w for w = kSumLanes / 2, ..., 1); the
// groups' partials are then summed the same way by one group (lane j: partials j, j + kSumLanes,
// ...). ordered_sum is that order on the host.
inline constexpr int64_t kSumLanes = 256;
int64_t sum_groups(int64_t n);
double ordered_sum(std::span<const double> values);

// --- The library kernels ------------------------------------------------------------------------

enum class AssemblyTarget { Cuda, Host };

// Source of the gather, reduction, untile and fill kernels. Cuda: an NVRTC translation unit
// with extern "C" __global__ entry points; Host: the same thread bodies in a C++ translation unit
// with extern "C" OpenMP loops (entry name + "_host", arguments (const Args*, int64 threads)) so
// that CI runs exactly the code the GPU runs.
std::string assembly_source(AssemblyTarget target);
// Entry points of assembly_source().
inline constexpr const char* kRowsEntry = "dj_gather_rows";
inline constexpr const char* kBlocksEntry = "dj_gather_blocks";
inline constexpr const char* kSumEntry = "dj_sum";  // CUDA only
inline constexpr const char* kUntileEntry = "dj_untile";
inline constexpr const char* kUntileCellsEntry = "dj_untile_cells";  // CUDA only
inline constexpr const char* kFillEntry = "dj_fill_zero";

// Argument blocks of the entry points, 8-byte fields only (mirrored in the kernel source).
struct GatherRowsArgs {
  const int64_t* inc_ptr;
  const int32_t* inc_element;
  const int8_t* inc_vertex;
  const int32_t* rule_ptr;
  const int32_t* rule_offset;
  const double* rule_sign;
  const double* local;
  int64_t stride;
  int64_t block;
  double* out;
  int64_t accumulate;  // 0: out = sum, else out += sum
};
struct GatherBlocksArgs {
  const int64_t* slot_ptr;
  const int64_t* slot_item;
  const int32_t* entry_ptr;
  const int32_t* entry_offset;
  const double* entry_sign;
  const double* local;
  int64_t stride;
  int64_t pairs;       // k * k
  int64_t block_size;  // B * B
  double* out;
  int64_t accumulate;
};
struct SumArgs {
  const double* in;
  int64_t n;
  int64_t groups;    // sum_groups(n)
  double* partials;  // groups entries
  double* out;
  uint32_t* done;  // groups finished; zero before and after each launch
};
// Tiled element blocks (jit::FirstStores::Tiled: in[(e / 32 * entries + i) * 32 +
// e % 32]) to out[e * entries + i] (cell-major) or out[i * elements + e] (component-major);
// cell-major with column_rows > 0, each block column-major: entry i = r * cols + c of element
// e to out[e * entries + c * column_rows + r] (BlockOrder::CellMajorColumns).
struct UntileArgs {
  const double* in;
  int64_t elements;
  int64_t entries;
  double* out;
  int64_t component_major;  // 0 or 1
  int64_t column_rows = 0;
};
// Threads of one untile launch: each moves one entry of four elements.
int64_t untile_threads(int64_t elements, int64_t entries);
// dj_untile_cells, the cell-major untile on the GPU: a block of kUntileCellsThreads moves a
// tile's elements' kUntileCellsEntries entries through shared memory, reading each entry's tile
// row as one 256-byte line and writing each element's entries as one run. GRI-3.0's Jacobian
// at 1e5 cells (4.6 GB moved) on an H200: 1.11 ms, the copy bandwidth; dj_untile (a thread an
// entry of four elements, one sector of each line at a time) took 2.28 (bench/RESULTS.md).
// The host runs dj_untile's thread bodies for both orders.
inline constexpr int kUntileCellsThreads = 256;
inline constexpr int kUntileCellsEntries = 64;
int64_t untile_cells_blocks(int64_t elements, int64_t entries);
// Launches dj_untile_cells of `module` (assembly_source(Cuda)'s) for a (its component_major
// ignored) on `stream`.
void untile_cells(const cuda::SourceModule& module, UntileArgs a, CUstream stream);
struct FillArgs {
  double* out;
};

// --- Device results -----------------------------------------------------------------------------

// A block-sparse matrix on the device in the layout of a cuSPARSE BSR descriptor
// (cusparseCreateBsr / cusparse<t>bsrmv): zero-based int32 indices, mb x nb blocks of
// block_dim x block_dim, each block ROW-MAJOR (CUSPARSE_ORDER_ROW / CUSPARSE_DIRECTION_ROW),
// block i at values + i * block_dim^2. With Symmetry::Upper only blocks with col >= row are
// stored (diagonal blocks whole): hand it to cuSPARSE as a symmetric/upper matrix, or use the
// General pattern for plain bsrmv. Pointers are device memory owned by the DeviceElementAssembly
// and valid until its next run of the same output.
struct DeviceBsr {
  int mb = 0, nb = 0, nnzb = 0, block_dim = 0;
  const int32_t* row_ptr = nullptr;  // mb + 1
  const int32_t* col_idx = nullptr;  // nnzb, sorted within each row
  double* values = nullptr;          // nnzb * block_dim * block_dim
  mesh::Symmetry symmetry = mesh::Symmetry::General;
  static constexpr bool row_major_blocks = true;
};

struct DeviceElementOptions {
  int width = 0;  // element kernels' dual width W; <= 0: all directions in one chunk
  jit::LaunchLayout layout;
  // Node vectors (residual, gradient, H v) and block matrices (Hessian, Jacobian).
  ElementStrategy vector_strategy = ElementStrategy::Gather;
  ElementStrategy matrix_strategy = ElementStrategy::Gather;
  // Hessian: each element's local Hessian projected before it is summed (an in-place
  // matrix_strategy only; jit/hessian_projection.h).
  jit::HessianProjection projection;
  // Device arrays (n_nodes x B) to read the state and the direction from, so that several
  // assemblies of one problem share their inputs; null: arrays of its own.
  double* state = nullptr;
  double* direction = nullptr;
  int rows = 0;  // outputs per row group of the general Jacobian's element kernels
  jit::CompileEffort compile_effort = jit::CompileEffort::Auto;  // of the element-local kernels
  int launches = 0;           // of the same: jit/lowering.h lower_launches
  bool tape_columns = false;  // AssemblerOptions::element_tape_columns
  // Their groups and launches (layout and effort are the element kernels' above).
  TapeColumnsSettings tape_column_settings;
};

class DeviceElementAssembly {
 public:
  // Uploads connectivity, params and incidence of every term; builds no pattern yet. Terms
  // added to `problem` afterwards are not seen (runs throw). `problem` must outlive this.
  explicit DeviceElementAssembly(Problem& problem, DeviceElementOptions options = {});

  Problem& problem() const { return problem_; }
  // The element kernels built so far (element-local and element-scatter).
  std::vector<const cuda::CudaKernel*> kernels() const;
  int64_t n_values() const { return problem_.n_nodes() * problem_.block_size(); }

  // Inputs on the device: node-major n_nodes x B doubles (DeviceElementOptions::state and
  // direction when given). The device pointers may also be written directly (e.g. by a
  // solver), in stream order before a run.
  void set_state(std::span<const double> state);
  void set_direction(std::span<const double> direction);
  double* state_device() const { return options_.state ? options_.state : ptr(state_); }
  double* direction_device() const {
    return options_.direction ? options_.direction : ptr(direction_);
  }

  // Runs on the device, asynchronous on `stream`; results stay there (pointers below).
  void run_energy(CUstream stream = nullptr);    // energy terms
  void run_gradient(CUstream stream = nullptr);  // energy terms
  void run_hessian(mesh::Symmetry symmetry = mesh::Symmetry::General, CUstream stream = nullptr);
  // The three at one state, into energy_device(), gradient_device() and hessian_bsr(): in one
  // kernel per term when the matrix strategy's unit sums the energy and gradient with the
  // Hessian (node-gather, staged-node-gather), else as the three runs.
  void run_energy_gradient_hessian(mesh::Symmetry symmetry = mesh::Symmetry::General,
                                   CUstream stream = nullptr);
  void run_hvp(CUstream stream = nullptr);       // H(state) direction, no H formed
  void run_residual(CUstream stream = nullptr);  // vector terms
  void run_jacobian(CUstream stream = nullptr);  // vector terms, General pattern
  // sparse: only the entries of jit::jacobian_pattern(term's kernel), nnz per element.
  // elements >= 0: the first `elements` elements only (a prefix of the term's set), their
  // blocks first in the results (component-major over that many elements).
  void run_element_jacobians(size_t term, BlockOrder order = BlockOrder::CellMajor,
                             CUstream stream = nullptr, bool sparse = false, int64_t elements = -1);

  // Device results of the last run of each output (n_values doubles for vectors; one double
  // for the energy; n_elements x n_out x n_in for element Jacobians, in the order run).
  const double* energy_device() const { return ptr(energy_); }
  const double* gradient_device() const { return ptr(gradient_); }
  const double* hvp_device() const { return ptr(hvp_); }
  const double* residual_device() const { return ptr(residual_); }
  const double* element_jacobians_device() const { return ptr(element_blocks_); }
  DeviceBsr hessian_bsr(mesh::Symmetry symmetry = mesh::Symmetry::General);
  DeviceBsr jacobian_bsr();

  // The Problem API on the GPU: upload, run on the null stream, wait, download. Errors raised
  // by the kernels surface here, naming the output.
  double energy(std::span<const double> state);
  std::vector<double> gradient(std::span<const double> state);
  mesh::BlockCsr<double> hessian(std::span<const double> state,
                                 mesh::Symmetry symmetry = mesh::Symmetry::General);
  std::vector<double> hvp(std::span<const double> state, std::span<const double> direction);
  std::vector<double> residual(std::span<const double> state);
  mesh::BlockCsr<double> jacobian(std::span<const double> state);
  std::vector<double> element_jacobians(size_t term, std::span<const double> state,
                                        BlockOrder order = BlockOrder::CellMajor,
                                        bool sparse = false);

 private:
  struct Local {  // element-major results of one term's kernel on the device
    cuda::DeviceBuffer values, first, second;
    cuda::DeviceBuffer tape;  // kernels that keep tapes (jit/tape_pattern.h)
  };
  // An in-place kernel and its last launch: a launch with the same inputs and target (a
  // solver's loop) reuses the packed block. Building and packing it took 0.5-0.7 us of the
  // 4-5 us the host spends enqueueing a node-gather launch, most of the rest being the driver's
  // (bench/RESULTS.md); its arguments are a function of the two alone (InPlaceStrategy::args).
  struct InPlaceKernel {
    std::unique_ptr<cuda::CudaKernel> kernel;
    jit::ElementLaunch inputs;
    InPlaceTarget target;
    std::optional<jit::PackedLaunch> packed;
  };
  struct TermData {
    cuda::DeviceBuffer conn, params, inc_ptr, inc_element, inc_vertex, inc_side, inc_nodes,
        inc_active;
    int64_t n_active = 0;  // mesh::nodes_with_elements: 0 when every node has elements
    cuda::DeviceBuffer row_ptr, row_offset, row_sign;        // RowGather
    cuda::DeviceBuffer entry_ptr, entry_offset, entry_sign;  // EntryGather
    int64_t row_stride = 0, entry_stride = 0;
    Local local;
    // Element-local, by mode, whether a Jacobian is sparse and how first derivatives are stored.
    std::map<std::tuple<Mode, bool, jit::FirstStores>,
             std::vector<std::unique_ptr<cuda::CudaKernel>>>
        kernels;
    // By strategy, mode and the blocks' pattern (null for rows): kernels may be sized by it.
    // The last keys: a Hessian kernel that sums the energy and gradient too; one that evaluates
    // the single-vertex terms at its nodes (InPlaceShape::node_terms).
    std::map<std::tuple<ElementStrategy, Mode, const mesh::BlockPattern*, bool, bool>,
             InPlaceKernel>
        in_place;
  };
  struct PatternData {  // one symmetry's pattern, on the device
    const mesh::BlockPattern* pattern = nullptr;
    cuda::DeviceBuffer row_ptr, col_idx;
    std::map<size_t, std::pair<cuda::DeviceBuffer, cuda::DeviceBuffer>> slots;  // per term
    std::map<size_t, cuda::DeviceBuffer> stored_slots;  // per term, for element-scatter
    cuda::DeviceBuffer values;     // the Hessian's, or the Jacobian's (General)
    cuda::DeviceBuffer diag_slot;  // per node, its diagonal block (where node terms add)
  };
  template <class T>
  static T* ptr(const cuda::DeviceBuffer& b) {
    return reinterpret_cast<T*>(b.get());
  }
  static double* ptr(const cuda::DeviceBuffer& b) { return ptr<double>(b); }

  void check_terms(const char* what) const;
  void check_values(std::span<const double> values, const char* what) const;
  // The element-local kernel's launches (one, or a kernel in row groups split by
  // jit::lower_launches), heaviest first, the order they are enqueued in; they share one
  // argument block and its outputs.
  // stores: how the kernels store first derivatives (jit/driver.h FirstStores; the gather
  // strategies read Direct, the element blocks ask for block_stores).
  const std::vector<std::unique_ptr<cuda::CudaKernel>>& element_launches(
      size_t term, Mode mode, bool sparse = false,
      jit::FirstStores stores = jit::FirstStores::Direct);
  // Runs term's element kernel over its first `elements` elements (all when negative);
  // first_out replaces the term's own `first` array when set.
  void run_element(size_t term, Mode mode, CUstream stream, double* first_out = nullptr,
                   bool sparse = false, int64_t elements = -1,
                   jit::FirstStores stores = jit::FirstStores::Direct);
  jit::ElementLaunch element_inputs(size_t term, Mode mode, const jit::LoweredKernel& l) const;
  // Adds term's rows (mode Value, Gradient or Hvp) into out (n_values) or its blocks (Hessian,
  // Jacobian) into pd's values by the options' strategy; `first`: out holds no earlier term.
  void sum_rows(size_t term, Mode mode, double* out, bool first, CUstream stream);
  void sum_blocks(size_t term, Mode mode, PatternData& pd, bool first, CUstream stream);
  // Runs term's kernel of an in-place strategy (strategies/in_place_strategy.h) into out;
  // pd: the blocks' pattern (Hessian, Jacobian), null for rows. `extra` (a Hessian): the
  // gradient and node energies to sum too, and the node terms to evaluate (InPlaceTarget's
  // fields).
  void run_in_place(ElementStrategy strategy, size_t term, Mode mode, double* out, bool first,
                    const PatternData* pd, CUstream stream, const InPlaceTarget* extra = nullptr);
  const int32_t* stored_slots(PatternData& pd, size_t term);
  // The energy terms' Hessian into pd's values, and with gradient (then node_energy too) their
  // gradient and energy per node. Under a matrix strategy that evaluates_node_terms(), the
  // first multi-vertex term's kernel evaluates the single-vertex terms too.
  void sum_hessian(PatternData& pd, CUstream stream, double* gradient = nullptr,
                   double* node_energy = nullptr);
  PatternData& pattern_data(mesh::Symmetry symmetry, bool hessian);
  void gather_rows(size_t term, const double* local, double* out, bool accumulate, CUstream stream);
  void gather_blocks(size_t term, PatternData& pd, const double* local, bool accumulate,
                     CUstream stream);
  void fill_zero(double* out, int64_t n, CUstream stream);
  // Sums n values into *out in sum_groups' order; scratch holds the groups' partials.
  void reduce(const double* in, int64_t n, double* out, double* scratch, CUstream stream);
  void launch(const char* entry, const void* args, int64_t threads, CUstream stream);
  // Tiled element blocks (jit::FirstStores::Tiled) into element_blocks_ in `order`; blocks
  // of column_rows rows (CellMajorColumns needs them).
  void untile(const double* tiles, int64_t elements, int64_t entries, BlockOrder order,
              int column_rows, CUstream stream);
  static void ensure(cuda::DeviceBuffer& b, size_t bytes);

  Problem& problem_;
  DeviceElementOptions options_;
  // Per term: its tape columns' launches, or null where the term's kernel has none.
  std::map<size_t, std::unique_ptr<DeviceTapeColumns>> tape_columns_;
  size_t n_terms_;
  std::unique_ptr<cuda::SourceModule> module_;
  std::vector<TermData> terms_;
  std::map<mesh::Symmetry, PatternData> hessians_;
  PatternData jacobian_;
  cuda::DeviceBuffer state_, direction_, gradient_, hvp_, residual_, energy_, node_energy_,
      partials_, element_blocks_;
  // dj_sum's count of finished groups (kept at zero between launches): an assembler's sums run
  // one at a time, like its other calls, which share its buffers too.
  cuda::DeviceBuffer sum_done_;
  // The streams an element kernel in several launches (jit::lower_launches) runs them on, and
  // the events that fork them from the caller's stream and join them back.
  std::vector<std::unique_ptr<cuda::Stream>> side_streams_;
  std::vector<cuda::Event> side_done_;
  std::unique_ptr<cuda::Event> fork_;
};

}  // namespace dualjit::assembly
