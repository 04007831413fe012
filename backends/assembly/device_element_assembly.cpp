#include "backends/assembly/device_element_assembly.h"

#include "backends/assembly/host_element_assembly.h"

#include "backends/assembly/strategies/in_place_strategy.h"
#include "jit/cuda_image.h"
#include "jit/element_driver.h"

#include <algorithm>
#include <array>
#include <limits>
#include <sstream>

namespace dualjit::assembly {
namespace {

constexpr int64_t kThreadsPerBlock = 256;
// Sums (sum_groups): each lane sums about this many values, in at most kMaxSumGroups groups
// (enough to fill any GPU with coalesced strided loads). Few values per lane, because each
// lane's sum is a chain of dependent adds behind memory latency.
constexpr int64_t kValuesPerLane = 16;
constexpr int64_t kMaxSumGroups = 1024;

std::string term_label(const Term& t) {
  return "term '" + t.name + "'";
}

// Kernel source shared by both targets: argument blocks (mirroring the C++ structs in
// device_element_assembly.h) and one function per thread.
const char* kThreadBodies = R"(
struct DjGatherRows {
  const long long* inc_ptr;
  const int* inc_element;
  const signed char* inc_vertex;
  const int* rule_ptr;
  const int* rule_offset;
  const double* rule_sign;
  const double* local;
  long long stride;
  long long block;
  double* out;
  long long accumulate;
};
struct DjGatherBlocks {
  const long long* slot_ptr;
  const long long* slot_item;
  const int* entry_ptr;
  const int* entry_offset;
  const double* entry_sign;
  const double* local;
  long long stride;
  long long pairs;
  long long block_size;
  double* out;
  long long accumulate;
};
struct DjUntile {
  const double* in;
  long long elements;
  long long entries;
  double* out;
  long long component_major;
  long long column_rows;
};
struct DjFill {
  double* out;
};

// Thread t = node * block + component: the node's incident (element, local vertex) pairs in
// incidence order (local vertex, then element), each through its vertex's rules.
DJ_FN void dj_gather_rows_at(const DjGatherRows& a, long long t) {
  const long long node = t / a.block, c = t - node * a.block;
  double sum = 0.0;
  for (long long i = a.inc_ptr[node]; i < a.inc_ptr[node + 1]; ++i) {
    const double* row = a.local + a.inc_element[i] * a.stride + c;
    const int v = a.inc_vertex[i];
    for (int r = a.rule_ptr[v]; r < a.rule_ptr[v + 1]; ++r) {
      sum += a.rule_sign[r] * row[a.rule_offset[r]];
    }
  }
  a.out[t] = a.accumulate ? a.out[t] + sum : sum;
}

// Thread t = slot * block_size + (i * B + j): the element pairs landing in the slot, in
// ascending (element, a, b) order, each entry through its sources.
DJ_FN void dj_gather_blocks_at(const DjGatherBlocks& a, long long t) {
  const long long slot = t / a.block_size, ij = t - slot * a.block_size;
  double sum = 0.0;
  for (long long i = a.slot_ptr[slot]; i < a.slot_ptr[slot + 1]; ++i) {
    const long long item = a.slot_item[i];
    const long long e = item / a.pairs;
    const long long q = (item - e * a.pairs) * a.block_size + ij;
    const double* row = a.local + e * a.stride;
    for (int r = a.entry_ptr[q]; r < a.entry_ptr[q + 1]; ++r) {
      sum += a.entry_sign[r] * row[a.entry_offset[r]];
    }
  }
  a.out[t] = a.accumulate ? a.out[t] + sum : sum;
}

// Each thread moves entry i of elements 4q .. 4q + 3, one 32-byte sector of the tiles. Cell-major:
// t = q * entries + i, a warp's lanes consecutive entries, so each of the four stores is
// coalesced; component-major: t = i * quads + q, the lanes' sectors one after another.
// Column-major blocks (column_rows > 0): entry i = r * cols + c at c * column_rows + r.
DJ_FN void dj_untile_at(const DjUntile& a, long long t) {
  const long long quads = (a.elements + 3) / 4;
  long long q, i;
  if (a.component_major) {
    i = t / quads;
    q = t - i * quads;
  } else {
    q = t / a.entries;
    i = t - q * a.entries;
  }
  const long long e0 = 4 * q, n = a.elements - e0 < 4 ? a.elements - e0 : 4;
  const double* in = a.in + ((e0 / 32) * a.entries + i) * 32 + e0 % 32;
  if (a.component_major) {
    double* out = a.out + i * a.elements + e0;
    for (long long k = 0; k < n; ++k) out[k] = in[k];
  } else {
    const long long cols = a.column_rows > 0 ? a.entries / a.column_rows : 0;
    const long long at = a.column_rows > 0 ? (i % cols) * a.column_rows + i / cols : i;
    double* out = a.out + e0 * a.entries + at;
    for (long long k = 0; k < n; ++k) out[k * a.entries] = in[k];
  }
}

DJ_FN void dj_fill_zero_at(const DjFill& a, long long t) {
  a.out[t] = 0.0;
}
)";

const char* kEntries[][2] = {{kRowsEntry, "DjGatherRows"},
                             {kBlocksEntry, "DjGatherBlocks"},
                             {kUntileEntry, "DjUntile"},
                             {kFillEntry, "DjFill"}};

// The C++ argument blocks must match the kernel's, field for field (all 8 bytes).
static_assert(sizeof(GatherRowsArgs) == 11 * 8);
static_assert(sizeof(GatherBlocksArgs) == 11 * 8);
static_assert(sizeof(SumArgs) == 6 * 8);

// The sum in sum_groups' order, in one launch of sum_groups(n) blocks of kSumLanes threads: the
// last block to finish (a counter, which it resets) sums the groups' partials. CUDA only: the
// host has ordered_sum.
const char* kSumKernel = R"(
struct DjSum {
  const double* in;
  long long n;
  long long groups;
  double* partials;
  double* out;
  unsigned int* done;
};
// Lane j's value in s, combined pairwise: lane j += lane j + w for w = half, ..., 1.
__device__ double dj_sum_tree(double* s) {
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  return s[0];
}
extern "C" __global__ void __launch_bounds__(256) dj_sum(DjSum a) {
  __shared__ double s[256];
  __shared__ bool last;
  const long long stride = a.groups * blockDim.x;
  double sum = 0.0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += stride)
    sum += a.in[i];
  s[threadIdx.x] = sum;
  const double group = dj_sum_tree(s);
  if (a.groups == 1) {
    if (threadIdx.x == 0) *a.out = group;
    return;
  }
  if (threadIdx.x == 0) {
    a.partials[blockIdx.x] = group;
    __threadfence();
    last = atomicAdd(a.done, 1u) == (unsigned int)(a.groups - 1);
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  sum = 0.0;
  for (long long g = threadIdx.x; g < a.groups; g += blockDim.x) sum += __ldcg(a.partials + g);
  s[threadIdx.x] = sum;
  const double total = dj_sum_tree(s);
  if (threadIdx.x == 0) {
    *a.out = total;
    *a.done = 0;
  }
}
)";
// Cell-major blocks from tiles (device_element_assembly.h untile_cells_blocks): block b moves
// tile b / chunks, a block's positions (b % chunks) * 64 onwards, through s[entry][element] (a
// row of 33: no two lanes of a half-warp in one bank). Column-major blocks (column_rows > 0):
// position p = c * column_rows + r holds tile entry r * cols + c, each still one line.
const char* kUntileCellsKernel = R"(
extern "C" __global__ void __launch_bounds__(256) dj_untile_cells(DjUntile a) {
  __shared__ double s[64 * 33];
  const long long chunks = (a.entries + 63) / 64, tile = blockIdx.x / chunks;
  const long long i0 = (blockIdx.x - tile * chunks) * 64, e0 = tile * 32;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int m = a.entries - i0 < 64 ? (int)(a.entries - i0) : 64;
  const int live = a.elements - e0 < 32 ? (int)(a.elements - e0) : 32;
  const double* in = a.in + tile * a.entries * 32;
  // Column-major: position p = c * rows + r, stepped by 8 without dividing in the loop (with a
  // 64-bit division a load, GRI-3.0's transposed untile took 1.42 ms on an H200, 1.11 the other).
  const int rows = (int)a.column_rows, cols = rows > 0 ? (int)(a.entries / rows) : 0;
  int r = 0, c = 0;
  if (rows > 0) {
    r = (int)((i0 + warp) % rows);
    c = (int)((i0 + warp) / rows);
  }
  for (int j = warp; j < m; j += 8) {
    const long long i = rows > 0 ? (long long)r * cols + c : i0 + j;
    s[j * 33 + lane] = in[i * 32 + lane];
    for (r += 8; rows > 0 && r >= rows; r -= rows) ++c;
  }
  __syncthreads();
  for (int k = threadIdx.x; k < live * 64; k += 256) {
    const int el = k >> 6, j = k & 63;
    if (j < m) a.out[(e0 + el) * a.entries + i0 + j] = s[j * 33 + el];
  }
}
)";
static_assert(sizeof(UntileArgs) == 6 * 8);
static_assert(sizeof(FillArgs) == 8);

template <class T>
const T* as_ptr(const cuda::DeviceBuffer& b) {
  return reinterpret_cast<const T*>(b.get());
}

}  // namespace

SlotGather slot_gather(const mesh::BlockPattern& pattern, size_t set_index) {
  if (!pattern.has_diagonal()) {
    throw mesh::MeshError("slot_gather: element set '" + pattern.set_name(set_index) +
                          "': the pattern has no diagonal blocks (a split pattern)");
  }
  const std::vector<int64_t>& slots = pattern.element_slots(set_index);
  const std::vector<uint8_t>& transposed = pattern.transposed(set_index);
  const auto kept = [&](size_t i) { return transposed.empty() || !transposed[i]; };
  SlotGather g;
  g.ptr.assign(pattern.n_blocks() + 1, 0);
  for (size_t i = 0; i < slots.size(); ++i) {
    if (kept(i)) ++g.ptr[slots[i] + 1];
  }
  for (int64_t s = 0; s < pattern.n_blocks(); ++s) g.ptr[s + 1] += g.ptr[s];
  g.item.resize(g.ptr.back());
  std::vector<int64_t> cursor(g.ptr.begin(), g.ptr.end() - 1);
  // Items are visited in ascending order, so each slot's list comes out sorted.
  for (size_t i = 0; i < slots.size(); ++i) {
    if (kept(i)) g.item[cursor[slots[i]]++] = static_cast<int64_t>(i);
  }
  return g;
}

BsrIndex bsr_index(const mesh::BlockPattern& pattern) {
  BsrIndex ix;
  ix.row_ptr = pattern.row_ptr32();  // throws when the blocks exceed int32
  ix.col_idx = pattern.col_idx();
  return ix;
}

int64_t sum_groups(int64_t n) {
  const int64_t per_group = kSumLanes * kValuesPerLane;
  return std::clamp<int64_t>((n + per_group - 1) / per_group, 1, kMaxSumGroups);
}

double ordered_sum(std::span<const double> values) {
  const int64_t n = static_cast<int64_t>(values.size()), groups = sum_groups(n);
  const int64_t stride = groups * kSumLanes;
  std::array<double, kSumLanes> s;
  const auto tree = [&s] {
    for (int64_t w = kSumLanes / 2; w > 0; w /= 2) {
      for (int64_t j = 0; j < w; ++j) s[j] += s[j + w];
    }
    return s[0];
  };
  std::vector<double> partials(groups);
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t j = 0; j < kSumLanes; ++j) {
      double sum = 0.0;
      for (int64_t i = g * kSumLanes + j; i < n; i += stride) sum += values[i];
      s[j] = sum;
    }
    partials[g] = tree();
  }
  if (groups == 1) return partials[0];
  for (int64_t j = 0; j < kSumLanes; ++j) {
    double sum = 0.0;
    for (int64_t g = j; g < groups; g += kSumLanes) sum += partials[g];
    s[j] = sum;
  }
  return tree();
}

static_assert(jit::kFirstTile == 32, "dj_untile_at's tiles are a warp's 32 elements");

int64_t untile_threads(int64_t elements, int64_t entries) {
  return (elements + 3) / 4 * entries;
}

static_assert(kUntileCellsThreads == 256 && kUntileCellsEntries == 64,
              "dj_untile_cells' block and chunk");

int64_t untile_cells_blocks(int64_t elements, int64_t entries) {
  return (elements + 31) / 32 * ((entries + kUntileCellsEntries - 1) / kUntileCellsEntries);
}

void untile_cells(const cuda::SourceModule& module, UntileArgs a, CUstream stream) {
  const int64_t blocks = untile_cells_blocks(a.elements, a.entries);
  if (blocks <= 0) return;
  if (blocks > std::numeric_limits<int32_t>::max()) {
    throw ProblemError(std::string(kUntileCellsEntry) + ": " + std::to_string(a.elements) +
                       " elements of " + std::to_string(a.entries) +
                       " entries: " + std::to_string(blocks) + " blocks exceed one grid");
  }
  a.component_major = 0;
  void* params[] = {&a};
  cuda::launch(module.function(kUntileCellsEntry), cuda::Dim3{static_cast<unsigned>(blocks)},
               cuda::Dim3{static_cast<unsigned>(kUntileCellsThreads)}, 0, params, stream);
}

std::string assembly_source(AssemblyTarget target) {
  std::ostringstream os;
  if (target == AssemblyTarget::Cuda) {
    os << "// dualjit assembly kernels for NVRTC. Self-contained: no includes.\n"
       << "#define DJ_FN __device__ __forceinline__\n";
  } else {
    os << "// dualjit assembly kernels for the host compiler.\n"
       << "#define DJ_FN static inline\n";
  }
  os << kThreadBodies;
  if (target == AssemblyTarget::Cuda) os << kSumKernel << kUntileCellsKernel;
  for (const auto& [entry, args] : kEntries) {
    if (target == AssemblyTarget::Cuda) {
      os << "extern \"C\" __global__ void __launch_bounds__(" << kThreadsPerBlock << ") " << entry
         << "(" << args << " a, long long threads) {\n"
         << "  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
         << "  if (t < threads) " << entry << "_at(a, t);\n"
         << "}\n";
    } else {
      os << "extern \"C\" void " << entry << "_host(const " << args << "* a, long long threads) {\n"
         << "#pragma omp parallel for schedule(static)\n"
         << "  for (long long t = 0; t < threads; ++t) " << entry << "_at(*a, t);\n"
         << "}\n";
    }
  }
  return os.str();
}

// --- DeviceElementAssembly
// ------------------------------------------------------------------------------

DeviceElementAssembly::DeviceElementAssembly(Problem& problem, DeviceElementOptions options)
    : problem_(problem), options_(options), n_terms_(problem.n_terms()) {
  module_ = std::make_unique<cuda::SourceModule>("dualjit_assembly",
                                                 assembly_source(AssemblyTarget::Cuda));
  const int B = problem.block_size();
  for (size_t ti = 0; ti < n_terms_; ++ti) {
    const Term& t = problem.term(ti);
    TermData d;
    d.conn = cuda::DeviceBuffer::from(t.elements.conn);
    d.params = cuda::DeviceBuffer::from(t.params);
    const auto uses = [&](ElementStrategy s) {
      return options_.vector_strategy == s || options_.matrix_strategy == s;
    };
    const auto reads_incidence = [](ElementStrategy s) {
      return s == ElementStrategy::Gather || in_place_strategy(s).needs_incidence();
    };
    if (!reads_incidence(options_.vector_strategy) && !reads_incidence(options_.matrix_strategy)) {
      terms_.push_back(std::move(d));  // the kernels carry the rules and read no incidence
      continue;
    }
    const mesh::Incidence inc = mesh::build_incidence(problem.n_nodes(), t.elements);
    d.inc_element = cuda::DeviceBuffer::from(inc.element);
    const auto in_place_reads = [](ElementStrategy s) {
      return s != ElementStrategy::Gather && in_place_strategy(s).needs_incidence();
    };
    if (in_place_reads(options_.vector_strategy) || in_place_reads(options_.matrix_strategy)) {
      d.inc_side = cuda::DeviceBuffer::from(mesh::incidence_side_offsets(inc, t.elements));
      d.inc_nodes = cuda::DeviceBuffer::from(mesh::incidence_other_nodes(inc, t.elements));
    }
    const std::vector<int32_t> active = mesh::nodes_with_elements(inc);
    d.inc_active = cuda::DeviceBuffer::from(active);
    d.n_active = static_cast<int64_t>(active.size());
    if (!uses(ElementStrategy::Gather)) {  // the in-place kernels carry the rules
      terms_.push_back(std::move(d));
      continue;
    }
    d.inc_ptr = cuda::DeviceBuffer::from(inc.ptr);
    d.inc_vertex = cuda::DeviceBuffer::from(inc.local_vertex);
    const RowGather rows = t.energy ? input_rows(t, B) : residual_rows(t, B);
    d.row_ptr = cuda::DeviceBuffer::from(rows.ptr);
    d.row_offset = cuda::DeviceBuffer::from(rows.offset);
    d.row_sign = cuda::DeviceBuffer::from(rows.sign);
    d.row_stride = rows.stride;
    const EntryGather entries = t.energy ? hessian_entries(t, B) : jacobian_entries(t, B);
    d.entry_ptr = cuda::DeviceBuffer::from(entries.ptr);
    d.entry_offset = cuda::DeviceBuffer::from(entries.offset);
    d.entry_sign = cuda::DeviceBuffer::from(entries.sign);
    d.entry_stride = entries.stride;
    terms_.push_back(std::move(d));
  }
  const size_t bytes = static_cast<size_t>(n_values()) * sizeof(double);
  if (!options_.state) state_ = cuda::DeviceBuffer(bytes);
  if (!options_.direction) direction_ = cuda::DeviceBuffer(bytes);
  energy_ = cuda::DeviceBuffer(sizeof(double));
}

std::vector<const cuda::CudaKernel*> DeviceElementAssembly::kernels() const {
  std::vector<const cuda::CudaKernel*> out;
  for (const TermData& d : terms_) {
    for (const auto& [mode, launches] : d.kernels)
      for (const auto& k : launches) out.push_back(k.get());
    for (const auto& [key, k] : d.in_place)
      if (k.kernel) out.push_back(k.kernel.get());
  }
  for (const auto& [term, columns] : tape_columns_) {
    if (!columns) continue;
    for (const cuda::CudaKernel* k : columns->kernels()) out.push_back(k);
  }
  return out;
}

void DeviceElementAssembly::check_terms(const char* what) const {
  if (problem_.n_terms() != n_terms_) {
    throw ProblemError(std::string("DeviceElementAssembly::") + what + ": the problem has " +
                       std::to_string(problem_.n_terms()) + " terms, " + std::to_string(n_terms_) +
                       " when the DeviceElementAssembly was built");
  }
}

void DeviceElementAssembly::check_values(std::span<const double> values, const char* what) const {
  if (static_cast<int64_t>(values.size()) != n_values()) {
    throw ProblemError(std::string("DeviceElementAssembly: ") + what + " has " +
                       std::to_string(values.size()) + " values, expected " +
                       std::to_string(n_values()) + " (" + std::to_string(problem_.n_nodes()) +
                       " nodes x " + std::to_string(problem_.block_size()) + ")");
  }
}

void DeviceElementAssembly::ensure(cuda::DeviceBuffer& b, size_t bytes) {
  if (b.bytes() < bytes) b = cuda::DeviceBuffer(bytes);
}

void DeviceElementAssembly::set_state(std::span<const double> state) {
  check_values(state, "state");
  cuda::upload(state_device(), state.data(), state.size() * sizeof(double));
}

void DeviceElementAssembly::set_direction(std::span<const double> direction) {
  check_values(direction, "HVP direction");
  cuda::upload(direction_device(), direction.data(), direction.size() * sizeof(double));
}

const std::vector<std::unique_ptr<cuda::CudaKernel>>& DeviceElementAssembly::element_launches(
    size_t term, Mode mode, bool sparse, jit::FirstStores stores) {
  auto& k = terms_[term].kernels[{mode, sparse, stores}];
  if (k.empty()) {
    jit::LoweringOptions o =
        element_lowering(problem_.term(term), mode, options_.width, options_.rows);
    o.layout = options_.layout;
    o.sparse_jacobian = sparse;
    o.first_stores = stores;
    o.compile_effort = options_.compile_effort;
    o.launches = options_.launches;
    try {
      std::vector<jit::LoweredKernel> launches =
          jit::lower_launches(problem_.term(term).kernel_for(mode), o);
      if (launches.size() > 1) {  // compiled in parallel, each launch loaded from its image
        const std::string arch = cuda::Context::primary().device().arch();
        const auto options_of = [&](const jit::LoweredKernel& l) {
          return jit::default_compile_options(l, arch);
        };
        std::vector<jit::CudaImage> images = jit::cuda_images(launches, options_of);
        for (size_t i = 0; i < launches.size(); ++i) {
          const jit::CompileOptions options = options_of(launches[i]);
          k.push_back(std::make_unique<cuda::CudaKernel>(std::move(launches[i]), options,
                                                         std::move(images[i])));
        }
        // The launch that writes the tapes first (the others read them); then heaviest first:
        // the GPU hands out concurrent grids' blocks about in launch order, and a heavy launch
        // enqueued last runs its last waves alone, at its low occupancy.
        std::stable_sort(k.begin(), k.end(), [](const auto& a, const auto& b) {
          const jit::LoweredKernel &la = a->lowered(), &lb = b->lowered();
          if (la.writes_tape != lb.writes_tape) return la.writes_tape;
          return la.statements > lb.statements;
        });
      } else {
        k.push_back(std::make_unique<cuda::CudaKernel>(std::move(launches[0])));
      }
    } catch (const std::exception& e) {
      k.clear();
      throw ProblemError(term_label(problem_.term(term)) + ": element kernel (" +
                         std::string(mode_name(mode)) + "): " + e.what());
    }
  }
  return k;
}

jit::ElementLaunch DeviceElementAssembly::element_inputs(size_t term, Mode mode,
                                                         const jit::LoweredKernel& l) const {
  const Term& t = problem_.term(term);
  const TermData& d = terms_[term];
  jit::ElementLaunch a;
  a.n_elements = t.elements.size();
  a.conn = as_ptr<int32_t>(d.conn);
  a.vertices_per_element = t.elements.k;
  const size_t n_slots = l.input_vertex.size();
  a.fields.assign(n_slots, state_device());
  if (mode == Mode::Hvp) a.directions.assign(n_slots, direction_device());
  a.params = ptr(d.params);
  a.uniforms = t.uniforms;
  return a;
}

void DeviceElementAssembly::run_element(size_t term, Mode mode, CUstream stream, double* first_out,
                                        bool sparse, int64_t elements, jit::FirstStores stores) {
  const Term& t = problem_.term(term);
  TermData& d = terms_[term];
  const auto& launches = element_launches(term, mode, sparse, stores);
  const auto& l = launches[0]->lowered();
  const int64_t ne = t.elements.size();
  if (elements > ne)
    throw ProblemError(term_label(t) + ": the first " + std::to_string(elements) + " elements of " +
                       std::to_string(ne));
  ensure(d.local.values, ne * l.plan.n_outputs * sizeof(double));
  if (!first_out) {
    ensure(d.local.first,
           jit::stored_elements(l.options.first_stores, ne) * l.first_size * sizeof(double));
  }
  ensure(d.local.second, ne * l.second_size * sizeof(double));
  if (l.tape_size > 0) ensure(d.local.tape, jit::tape_doubles(l.tape_size, ne) * sizeof(double));
  jit::ElementLaunch a = element_inputs(term, mode, l);
  if (elements >= 0) a.n_elements = elements;
  a.values = ptr(d.local.values);
  a.first = first_out ? first_out : ptr(d.local.first);
  a.second = ptr(d.local.second);
  if (l.tape_size > 0) a.tape = ptr(d.local.tape);
  try {
    const jit::ArgValues args = a.args();
    // The tapes' launch, sorted first, before the launches that read them.
    const size_t first = l.writes_tape && launches.size() > 1 ? 1 : 0;
    if (first == 1) launches[0]->launch(args, stream);
    if (launches.size() == 1) {
      launches[0]->launch(args, stream);
    } else {
      // The launches write disjoint rows: each runs on a stream of its own, so that a few
      // cells' Jacobian costs the longest launch's latency rather than the sum of them all.
      if (!fork_) fork_ = std::make_unique<cuda::Event>();
      while (side_streams_.size() < launches.size()) {
        side_streams_.push_back(std::make_unique<cuda::Stream>());
        side_done_.emplace_back();
      }
      fork_->record(stream);
      for (size_t i = first; i < launches.size(); ++i) {
        cuda::Stream::wait(side_streams_[i]->handle(), *fork_);
        launches[i]->launch(args, side_streams_[i]->handle());
        side_done_[i].record(side_streams_[i]->handle());
      }
      for (size_t i = first; i < launches.size(); ++i) cuda::Stream::wait(stream, side_done_[i]);
    }
  } catch (const std::exception& e) {
    throw ProblemError(term_label(t) + ": element kernel (" + std::string(mode_name(mode)) +
                       "): " + e.what());
  }
}

void DeviceElementAssembly::run_in_place(ElementStrategy strategy, size_t term, Mode mode,
                                         double* out, bool first, const PatternData* pd,
                                         CUstream stream, const InPlaceTarget* extra) {
  const InPlaceStrategy& st = in_place_strategy(strategy);
  const Term& t = problem_.term(term);
  const TermData& d = terms_[term];
  if (first && st.adds_to_output()) {
    const int64_t bb = int64_t(problem_.block_size()) * problem_.block_size();
    fill_zero(out, pd ? pd->pattern->n_blocks() * bb : n_values(), stream);
  }
  const bool with_energy_gradient = extra && extra->gradient;
  const bool with_node_terms = extra && !extra->node_terms.empty();
  InPlaceKernel& slot = terms_[term].in_place[{strategy, mode, pd ? pd->pattern : nullptr,
                                               with_energy_gradient, with_node_terms}];
  auto& k = slot.kernel;
  try {
    if (!k) {
      std::vector<const Term*> node_terms;
      if (with_node_terms) {
        for (size_t ti : single_vertex_energy_terms(problem_))
          node_terms.push_back(&problem_.term(ti));
      }
      k = std::make_unique<cuda::CudaKernel>(jit::lower(
          t.kernel_for(mode),
          st.lowering(t, mode,
                      {problem_.block_size(), options_.width, options_.layout.elements_per_block,
                       pd ? pd->pattern : nullptr, options_.projection, with_energy_gradient,
                       std::move(node_terms), options_.layout.min_blocks})));
    }
    InPlaceTarget g;
    if (extra) g = *extra;
    g.n_nodes = problem_.n_nodes();
    if (st.needs_incidence()) {
      g.inc_side = as_ptr<uint32_t>(d.inc_side);
      g.inc_element = as_ptr<int32_t>(d.inc_element);
      g.inc_nodes = as_ptr<int32_t>(d.inc_nodes);
      if (d.n_active > 0) {
        g.active = as_ptr<int32_t>(d.inc_active);
        g.n_active = d.n_active;
      }
    }
    g.out = out;
    g.accumulate = !first;
    if (pd) {
      g.row_ptr = as_ptr<int32_t>(pd->row_ptr);
      g.slots = as_ptr<int32_t>(pd->stored_slots.at(term));
    }
    jit::ElementLaunch inputs = element_inputs(term, mode, k->lowered());
    if (!slot.packed || !(inputs == slot.inputs) || !(g == slot.target)) {
      slot.packed.reset();  // a launch that fails to pack leaves nothing to reuse
      slot.packed = jit::pack_launch(k->lowered(), st.args(inputs, g));
      slot.inputs = std::move(inputs);
      slot.target = g;
    }
    k->launch(*slot.packed, stream);
  } catch (const ProblemError&) {
    throw;
  } catch (const std::exception& e) {
    throw ProblemError(term_label(t) + ": " + std::string(element_strategy_name(strategy)) +
                       " kernel (" + std::string(mode_name(mode)) + "): " + e.what());
  }
}

void DeviceElementAssembly::sum_rows(size_t term, Mode mode, double* out, bool first,
                                     CUstream stream) {
  if (options_.vector_strategy != ElementStrategy::Gather) {
    run_in_place(options_.vector_strategy, term, mode, out, first, nullptr, stream);
    return;
  }
  run_element(term, mode, stream);
  const Local& l = terms_[term].local;
  const double* local = ptr(mode == Mode::Value      ? l.values
                            : mode == Mode::Gradient ? l.first
                                                     : l.second);
  gather_rows(term, local, out, !first, stream);
}

void DeviceElementAssembly::sum_blocks(size_t term, Mode mode, PatternData& pd, bool first,
                                       CUstream stream) {
  if (options_.matrix_strategy != ElementStrategy::Gather) {
    stored_slots(pd, term);
    run_in_place(options_.matrix_strategy, term, mode, ptr(pd.values), first, &pd, stream);
    return;
  }
  run_element(term, mode, stream);
  const Local& l = terms_[term].local;
  gather_blocks(term, pd, ptr(mode == Mode::Jacobian ? l.first : l.second), !first, stream);
}

const int32_t* DeviceElementAssembly::stored_slots(PatternData& pd, size_t term) {
  auto& slots = pd.stored_slots[term];
  if (slots.bytes() == 0) slots = cuda::DeviceBuffer::from(stored_block_slots(*pd.pattern, term));
  return as_ptr<int32_t>(slots);
}

void DeviceElementAssembly::launch(const char* entry, const void* args, int64_t threads,
                                   CUstream stream) {
  if (threads <= 0) return;
  const int64_t blocks = (threads + kThreadsPerBlock - 1) / kThreadsPerBlock;
  if (blocks > std::numeric_limits<int32_t>::max()) {
    throw ProblemError(std::string("DeviceElementAssembly: ") + entry + ": " +
                       std::to_string(threads) + " threads exceed one grid");
  }
  void* params[] = {const_cast<void*>(args), &threads};
  cuda::launch(module_->function(entry), cuda::Dim3{static_cast<unsigned>(blocks)},
               cuda::Dim3{static_cast<unsigned>(kThreadsPerBlock)}, 0, params, stream);
}

void DeviceElementAssembly::fill_zero(double* out, int64_t n, CUstream stream) {
  const FillArgs a{out};
  launch(kFillEntry, &a, n, stream);
}

void DeviceElementAssembly::gather_rows(size_t term, const double* local, double* out,
                                        bool accumulate, CUstream stream) {
  const TermData& d = terms_[term];
  const GatherRowsArgs a{as_ptr<int64_t>(d.inc_ptr),
                         as_ptr<int32_t>(d.inc_element),
                         as_ptr<int8_t>(d.inc_vertex),
                         as_ptr<int32_t>(d.row_ptr),
                         as_ptr<int32_t>(d.row_offset),
                         as_ptr<double>(d.row_sign),
                         local,
                         d.row_stride,
                         problem_.block_size(),
                         out,
                         accumulate ? 1 : 0};
  launch(kRowsEntry, &a, n_values(), stream);
}

DeviceElementAssembly::PatternData& DeviceElementAssembly::pattern_data(mesh::Symmetry symmetry,
                                                                        bool hessian) {
  PatternData& pd = hessian ? hessians_[symmetry] : jacobian_;
  if (pd.pattern) return pd;
  const mesh::BlockPattern& pattern = problem_.pattern(symmetry);
  const BsrIndex ix = bsr_index(pattern);
  pd.row_ptr = cuda::DeviceBuffer::from(ix.row_ptr);
  pd.col_idx = cuda::DeviceBuffer::from(ix.col_idx);
  const int64_t bb = int64_t(problem_.block_size()) * problem_.block_size();
  pd.values = cuda::DeviceBuffer(std::max<int64_t>(pattern.n_blocks(), 1) * bb * sizeof(double));
  for (size_t ti = 0; ti < n_terms_; ++ti) {
    if (problem_.term(ti).energy != hessian ||
        options_.matrix_strategy != ElementStrategy::Gather) {
      continue;
    }
    const SlotGather g = slot_gather(pattern, ti);
    pd.slots[ti] = {cuda::DeviceBuffer::from(g.ptr), cuda::DeviceBuffer::from(g.item)};
  }
  pd.pattern = &pattern;
  return pd;
}

void DeviceElementAssembly::gather_blocks(size_t term, PatternData& pd, const double* local,
                                          bool accumulate, CUstream stream) {
  const TermData& d = terms_[term];
  const auto& [slot_ptr, slot_item] = pd.slots.at(term);
  const int k = problem_.term(term).elements.k;
  const int64_t bb = int64_t(problem_.block_size()) * problem_.block_size();
  const GatherBlocksArgs a{as_ptr<int64_t>(slot_ptr),
                           as_ptr<int64_t>(slot_item),
                           as_ptr<int32_t>(d.entry_ptr),
                           as_ptr<int32_t>(d.entry_offset),
                           as_ptr<double>(d.entry_sign),
                           local,
                           d.entry_stride,
                           int64_t(k) * k,
                           bb,
                           ptr(pd.values),
                           accumulate ? 1 : 0};
  launch(kBlocksEntry, &a, pd.pattern->n_blocks() * bb, stream);
}

void DeviceElementAssembly::reduce(const double* in, int64_t n, double* out, double* scratch,
                                   CUstream stream) {
  if (sum_done_.bytes() == 0) {
    sum_done_ = cuda::DeviceBuffer(sizeof(uint32_t));
    sum_done_.fill_bytes(0);
  }
  const int64_t groups = sum_groups(n);
  SumArgs a{in, n, groups, scratch, out, reinterpret_cast<uint32_t*>(sum_done_.get())};
  void* params[] = {&a};
  cuda::launch(module_->function(kSumEntry), cuda::Dim3{static_cast<unsigned>(groups)},
               cuda::Dim3{static_cast<unsigned>(kSumLanes)}, 0, params, stream);
}

void DeviceElementAssembly::run_energy(CUstream stream) {
  check_terms("run_energy");
  // partials_: the per-term totals, then the groups' partials of one sum at a time.
  int64_t scratch = sum_groups(static_cast<int64_t>(n_terms_));
  for (size_t ti = 0; ti < n_terms_; ++ti) {
    scratch = std::max(scratch, sum_groups(problem_.term(ti).elements.size()));
  }
  const int64_t totals = static_cast<int64_t>(n_terms_);
  ensure(partials_, (totals + scratch) * sizeof(double));
  double* groups = ptr(partials_) + totals;
  int64_t n_energy = 0;
  for (size_t ti = 0; ti < n_terms_; ++ti) {
    if (!problem_.term(ti).energy) continue;
    run_element(ti, Mode::Value, stream);
    reduce(ptr(terms_[ti].local.values), problem_.term(ti).elements.size(),
           ptr(partials_) + n_energy, groups, stream);
    ++n_energy;
  }
  reduce(ptr(partials_), n_energy, ptr(energy_), groups, stream);
}

void DeviceElementAssembly::run_gradient(CUstream stream) {
  check_terms("run_gradient");
  ensure(gradient_, n_values() * sizeof(double));
  bool accumulate = false;
  for (size_t ti = 0; ti < n_terms_; ++ti) {
    if (!problem_.term(ti).energy) continue;
    sum_rows(ti, Mode::Gradient, ptr(gradient_), !accumulate, stream);
    accumulate = true;
  }
  if (!accumulate) fill_zero(ptr(gradient_), n_values(), stream);
}

void DeviceElementAssembly::run_hvp(CUstream stream) {
  check_terms("run_hvp");
  ensure(hvp_, n_values() * sizeof(double));
  bool accumulate = false;
  for (size_t ti = 0; ti < n_terms_; ++ti) {
    if (!problem_.term(ti).energy) continue;
    sum_rows(ti, Mode::Hvp, ptr(hvp_), !accumulate, stream);
    accumulate = true;
  }
  if (!accumulate) fill_zero(ptr(hvp_), n_values(), stream);
}

void DeviceElementAssembly::run_hessian(mesh::Symmetry symmetry, CUstream stream) {
  check_terms("run_hessian");
  sum_hessian(pattern_data(symmetry, /*hessian=*/true), stream);
}

void DeviceElementAssembly::sum_hessian(PatternData& pd, CUstream stream, double* gradient,
                                        double* node_energy) {
  const ElementStrategy s = options_.matrix_strategy;
  const int64_t bb = int64_t(problem_.block_size()) * problem_.block_size();
  // The single-vertex terms in the order of the kernels' node terms (the one list both take).
  const std::vector<size_t> single = single_vertex_energy_terms(problem_);
  std::vector<size_t> multi;
  for (size_t ti = 0; ti < n_terms_; ++ti) {
    const Term& t = problem_.term(ti);
    if (t.energy && t.elements.k > 1) multi.push_back(ti);
  }
  if (single.empty() && multi.empty()) {
    fill_zero(ptr(pd.values), pd.pattern->n_blocks() * bb, stream);
    if (gradient) {
      fill_zero(gradient, n_values(), stream);
      fill_zero(node_energy, problem_.n_nodes(), stream);
    }
    return;
  }
  InPlaceTarget extra;
  extra.gradient = gradient;
  extra.node_energy = node_energy;
  // Under a unit that evaluates_node_terms(), the first multi-vertex term's kernel evaluates
  // the single-vertex terms at its nodes: they get no kernel of their own.
  const bool fold = s != ElementStrategy::Gather && in_place_strategy(s).evaluates_node_terms() &&
                    !single.empty() && !multi.empty();
  if (!fold) {
    bool first = true;
    for (size_t ti = 0; ti < n_terms_; ++ti) {
      if (!problem_.term(ti).energy) continue;
      if (gradient) {
        stored_slots(pd, ti);
        extra.accumulate_energy_gradient = !first;
        run_in_place(s, ti, Mode::Hessian, ptr(pd.values), first, &pd, stream, &extra);
      } else {
        sum_blocks(ti, Mode::Hessian, pd, first, stream);
      }
      first = false;
    }
    return;
  }
  if (pd.diag_slot.bytes() == 0) {
    const int64_t n = problem_.n_nodes();
    std::vector<int32_t> d(n);
    for (int64_t i = 0; i < n; ++i) d[i] = static_cast<int32_t>(pd.pattern->diag_index(i));
    pd.diag_slot = cuda::DeviceBuffer::from(d);
  }
  extra.diagonal_slot = as_ptr<int32_t>(pd.diag_slot);
  for (size_t ti : single) {
    const TermData& d = terms_[ti];
    extra.node_terms.push_back({as_ptr<uint32_t>(d.inc_side), as_ptr<int32_t>(d.inc_element),
                                ptr(d.params), problem_.term(ti).uniforms});
  }
  for (size_t ti : multi) {
    stored_slots(pd, ti);
    extra.accumulate_energy_gradient = ti != multi.front();
    run_in_place(s, ti, Mode::Hessian, ptr(pd.values), ti == multi.front(), &pd, stream, &extra);
    extra.node_terms.clear();  // evaluated once, by the term that stores the rows
    extra.diagonal_slot = nullptr;
  }
}

void DeviceElementAssembly::run_energy_gradient_hessian(mesh::Symmetry symmetry, CUstream stream) {
  check_terms("run_energy_gradient_hessian");
  const ElementStrategy s = options_.matrix_strategy;
  if (s == ElementStrategy::Gather || !in_place_strategy(s).sums_energy_gradient()) {
    run_energy(stream);
    run_gradient(stream);
    run_hessian(symmetry, stream);
    return;
  }
  PatternData& pd = pattern_data(symmetry, /*hessian=*/true);
  const int64_t n_nodes = problem_.n_nodes();
  ensure(gradient_, n_values() * sizeof(double));
  ensure(node_energy_, std::max<int64_t>(n_nodes, 1) * sizeof(double));
  sum_hessian(pd, stream, ptr(gradient_), ptr(node_energy_));
  // The nodes' shares in a fixed order: bit-identical from run to run, like run_energy (whose
  // order of additions differs, so the two agree to round-off).
  ensure(partials_, sum_groups(n_nodes) * sizeof(double));
  reduce(ptr(node_energy_), n_nodes, ptr(energy_), ptr(partials_), stream);
}

void DeviceElementAssembly::run_residual(CUstream stream) {
  check_terms("run_residual");
  ensure(residual_, n_values() * sizeof(double));
  bool accumulate = false;
  for (size_t ti = 0; ti < n_terms_; ++ti) {
    if (problem_.term(ti).energy) continue;
    sum_rows(ti, Mode::Value, ptr(residual_), !accumulate, stream);
    accumulate = true;
  }
  if (!accumulate) fill_zero(ptr(residual_), n_values(), stream);
}

void DeviceElementAssembly::run_jacobian(CUstream stream) {
  check_terms("run_jacobian");
  PatternData& pd = pattern_data(mesh::Symmetry::General, /*hessian=*/false);
  bool accumulate = false;
  for (size_t ti = 0; ti < n_terms_; ++ti) {
    if (problem_.term(ti).energy) continue;
    sum_blocks(ti, Mode::Jacobian, pd, !accumulate, stream);
    accumulate = true;
  }
  const int64_t bb = int64_t(problem_.block_size()) * problem_.block_size();
  if (!accumulate) fill_zero(ptr(pd.values), pd.pattern->n_blocks() * bb, stream);
}

void DeviceElementAssembly::run_element_jacobians(size_t term, BlockOrder order, CUstream stream,
                                                  bool sparse, int64_t elements) {
  check_terms("run_element_jacobians");
  if (term >= n_terms_) {
    throw ProblemError("DeviceElementAssembly::run_element_jacobians: term #" +
                       std::to_string(term) + " of " + std::to_string(n_terms_));
  }
  const Term& t = problem_.term(term);
  const int64_t ne = elements >= 0 ? elements : static_cast<int64_t>(t.elements.size());
  if (options_.tape_columns && !sparse) {
    // Every order straight from the tape columns' launches (cell-major rows by their expand
    // launch).
    const ColumnStores stores = column_stores(order);
    auto [it, fresh] = tape_columns_.try_emplace(term);
    if (fresh) {
      TapeColumnsSettings settings = options_.tape_column_settings;
      settings.layout = options_.layout;
      settings.effort = options_.compile_effort;
      it->second = DeviceTapeColumns::make(t, settings, stores);
    }
    if (it->second) {
      const auto fs = static_cast<int64_t>(t.kernel->n_outputs()) * t.kernel->n_inputs();
      ensure(element_blocks_, ne * fs * sizeof(double));
      jit::ElementLaunch a = element_inputs(term, Mode::Jacobian, it->second->tapes_lowered());
      a.n_elements = ne;
      it->second->run(a, ptr(element_blocks_), stores, stream);
      return;
    }
  }
  const jit::FirstStores stores = block_stores(order);
  const jit::LoweredKernel& l =
      element_launches(term, Mode::Jacobian, sparse, stores)[0]->lowered();
  const int64_t fs = static_cast<int64_t>(l.first_size);
  ensure(element_blocks_, ne * fs * sizeof(double));  // a prefix needs (and grows) no more
  if (jit::is_staged(l.options.first_stores)) {       // in the order asked for, from the kernels
    run_element(term, Mode::Jacobian, stream, ptr(element_blocks_), sparse, ne, stores);
    return;
  }
  // The kernels store tiles, coalesced; one pass puts them in the order asked for.
  run_element(term, Mode::Jacobian, stream, nullptr, sparse, ne, stores);
  untile(ptr(terms_[term].local.first), ne, fs, order, sparse ? 1 : t.kernel->n_outputs(), stream);
}

void DeviceElementAssembly::untile(const double* tiles, int64_t elements, int64_t entries,
                                   BlockOrder order, int column_rows, CUstream stream) {
  const bool component_major = order == BlockOrder::ComponentMajor;
  UntileArgs a{tiles,
               elements,
               entries,
               ptr(element_blocks_),
               component_major ? 1 : 0,
               order == BlockOrder::CellMajorColumns ? column_rows : 0};
  if (component_major) {
    launch(kUntileEntry, &a, untile_threads(elements, entries), stream);
    return;
  }
  untile_cells(*module_, a, stream);
}

DeviceBsr DeviceElementAssembly::hessian_bsr(mesh::Symmetry symmetry) {
  check_terms("hessian_bsr");
  const PatternData& pd = pattern_data(symmetry, /*hessian=*/true);
  DeviceBsr m;
  m.mb = m.nb = static_cast<int>(problem_.n_nodes());
  m.nnzb = static_cast<int>(pd.pattern->n_blocks());
  m.block_dim = problem_.block_size();
  m.row_ptr = as_ptr<int32_t>(pd.row_ptr);
  m.col_idx = as_ptr<int32_t>(pd.col_idx);
  m.values = ptr(pd.values);
  m.symmetry = symmetry;
  return m;
}

DeviceBsr DeviceElementAssembly::jacobian_bsr() {
  check_terms("jacobian_bsr");
  const PatternData& pd = pattern_data(mesh::Symmetry::General, /*hessian=*/false);
  DeviceBsr m;
  m.mb = m.nb = static_cast<int>(problem_.n_nodes());
  m.nnzb = static_cast<int>(pd.pattern->n_blocks());
  m.block_dim = problem_.block_size();
  m.row_ptr = as_ptr<int32_t>(pd.row_ptr);
  m.col_idx = as_ptr<int32_t>(pd.col_idx);
  m.values = ptr(pd.values);
  return m;
}

namespace {

// Waits for the null stream's work, surfacing kernel errors under `what`, then copies.
std::vector<double> download(const cuda::DeviceBuffer& b, int64_t n, const char* what) {
  cuda::check_last(what);
  std::vector<double> out(n);
  if (n > 0) b.download(out.data(), n * sizeof(double));
  return out;
}

}  // namespace

double DeviceElementAssembly::energy(std::span<const double> state) {
  set_state(state);
  run_energy();
  return download(energy_, 1, "DeviceElementAssembly::energy")[0];
}

std::vector<double> DeviceElementAssembly::gradient(std::span<const double> state) {
  set_state(state);
  run_gradient();
  return download(gradient_, n_values(), "DeviceElementAssembly::gradient");
}

std::vector<double> DeviceElementAssembly::hvp(std::span<const double> state,
                                               std::span<const double> direction) {
  set_state(state);
  set_direction(direction);
  run_hvp();
  return download(hvp_, n_values(), "DeviceElementAssembly::hvp");
}

std::vector<double> DeviceElementAssembly::residual(std::span<const double> state) {
  set_state(state);
  run_residual();
  return download(residual_, n_values(), "DeviceElementAssembly::residual");
}

mesh::BlockCsr<double> DeviceElementAssembly::hessian(std::span<const double> state,
                                                      mesh::Symmetry symmetry) {
  set_state(state);
  run_hessian(symmetry);
  const PatternData& pd = hessians_.at(symmetry);
  auto m = mesh::BlockCsr<double>::zeros(*pd.pattern, problem_.block_size(), problem_.block_size());
  m.values =
      download(pd.values, static_cast<int64_t>(m.values.size()), "DeviceElementAssembly::hessian");
  return m;
}

mesh::BlockCsr<double> DeviceElementAssembly::jacobian(std::span<const double> state) {
  set_state(state);
  run_jacobian();
  auto m = mesh::BlockCsr<double>::zeros(*jacobian_.pattern, problem_.block_size(),
                                         problem_.block_size());
  m.values = download(jacobian_.values, static_cast<int64_t>(m.values.size()),
                      "DeviceElementAssembly::jacobian");
  return m;
}

std::vector<double> DeviceElementAssembly::element_jacobians(size_t term,
                                                             std::span<const double> state,
                                                             BlockOrder order, bool sparse) {
  set_state(state);
  run_element_jacobians(term, order, nullptr, sparse);
  const Term& t = problem_.term(term);
  // Dense blocks are n_outputs x n_inputs whichever launches wrote them; sparse ones the
  // kernel's pattern.
  const int64_t fs = sparse ? static_cast<int64_t>(element_launches(term, Mode::Jacobian, sparse,
                                                                    block_stores(order))[0]
                                                       ->lowered()
                                                       .first_size)
                            : int64_t(t.kernel->n_outputs()) * t.kernel->n_inputs();
  return download(element_blocks_, t.elements.size() * fs,
                  "DeviceElementAssembly::element_jacobians");
}

}  // namespace dualjit::assembly
