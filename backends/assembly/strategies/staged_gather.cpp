// staged-gather: gather by column on CUDA with node-owned blocks. A block owns the nodes
// [node_blocks[2b], node_blocks[2b + 1]) and runs their elements a tile at a time, thread t the
// t-th element of every side (mesh::SideIncidence; every lane of a warp differentiates with
// respect to the same vertex): the tile's local results are staged in shared memory, its
// off-diagonal blocks written out coalesced (stored: each belongs to this block's columns;
// added atomically only where a slot has several writers), and the residual rows and diagonal
// blocks summed per node in shared memory and written once per node. No atomics on a mesh
// whose off slots have one writer each, and bit-identical there across runs and tile sizes,
// in the summation order of gather_by_column.cpp (a node's sides keep running sums across
// tiles, so a hub node whose side spans several tiles sums in the same order too).
// store_rows: the block stores its rows instead of adding them (the first term of a problem,
// whose node blocks cover every node: no zeroing needed).
#include <sstream>

#include "backends/assembly/problem.h"
#include "backends/assembly/strategies/gather_tile.h"
#include "backends/assembly/strategies/units.h"
#include "jit/driver_text.h"

namespace dualjit::assembly {
namespace {

using namespace emit;

// Static shared memory of the kernel: its GatherShared arrays.
size_t staged_gather_shared_bytes(const jit::DriverSpec& s, const FusedSpec& a) {
  const GatherShared g = gather_shared(s, a);
  return 8 * size_t(g.staging() + g.racc + g.dacc) + 4 * size_t(g.runs + g.slots);
}

// The kernel: the block owns nodes [n0, n1); in each tile thread t runs the t-th element of
// every side of those nodes (one chunk per side, every lane of a warp differentiating with
// respect to the same vertex), then the block writes the tile's off-diagonal blocks of its
// columns and sums its residual rows and diagonal blocks per node into shared accumulators,
// written once at the end. One barrier-to-barrier phase per tile for all sides, because at 8
// warps per SM each phase adds its own latency that no other warp hides: one phase per tile
// measured about 2.98 ms against 3.18 ms for a phase per side (bench/RESULTS.md).
std::string staged_gather_entry(const jit::DriverSpec& s, const FusedSpec& a) {
  const GatherTile g(s, a);
  const int T = g.T;
  std::ostringstream os;
  os << "extern \"C\" __global__ void __launch_bounds__(" << T << jit::bounds_min(s) << ") "
     << s.symbol << "(const " << s.args_type() << " a) {\n"
     << "  __shared__ double dj_val[" << g.mem.values << "];\n"
     << "  __shared__ double dj_racc[" << g.mem.racc << "];\n"
     << "  __shared__ int dj_run[" << g.mem.runs << "];\n";
  if (a.jacobian) {
    os << "  __shared__ double dj_d1[" << g.mem.d1 << "];\n"
       << "  __shared__ double dj_dacc[" << g.mem.dacc << "];\n"
       << "  __shared__ int dj_slot[" << g.mem.slots << "];\n";
  }
  os << "  " << off_type(a) << "* off = (" << off_type(a) << "*)a.off;\n"
     << "  (void)off;\n"
     << g.node_block("blockIdx.x", "  ") << g.zero_sums("threadIdx.x", T, "  ")
     << "  for (long long tile = 0; tile < n_tiles; ++tile) {\n"
     << "    __syncthreads();  // the previous tile's staging has been read\n"
     << g.tile_range("    ") << g.runs_and_slots("threadIdx.x", T, "    ");
  for (int lv = 0; lv < g.K; ++lv)
    os << "    if (threadIdx.x < here" << lv << ")\n      " << g.run_side(lv, "threadIdx.x");
  os << "    __syncthreads();\n"
     << g.write_out("threadIdx.x", T, "    ") << g.reduce("threadIdx.x", T, "    ") << "  }\n"
     << "  __syncthreads();\n"
     << g.store_rows("threadIdx.x", T, "  ") << "}\n";
  return os.str();
}

class StagedGather : public TiledGatherStrategy {
 public:
  using TiledGatherStrategy::TiledGatherStrategy;
  std::string_view name() const override { return "staged-gather"; }

  std::string cuda_entry(const jit::DriverSpec& s, const jit::DerivativePlan& plan) const override {
    return side_function(s, plan, spec()) + staged_gather_entry(s, spec());
  }
  // One block per node block.
  jit::LaunchPolicy launch(const jit::DriverSpec& s) const override {
    return {"n_node_blocks", 1, s.layout.block_threads(), 0, 0};
  }
  jit::CompileFlags compile_flags() const override { return {false, ""}; }

 protected:
  std::string letters() const override { return tile_letters(); }
  void check_strategy(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
                      const std::string& kernel) const override {
    check_tile(s, plan, kernel);
    if (staged_gather_shared_bytes(s, spec()) > kStaticSharedMax) {
      unfit(kernel, "staging " + std::to_string(s.layout.elements_per_block) + " elements needs " +
                        std::to_string(staged_gather_shared_bytes(s, spec())) +
                        " bytes of shared memory, over the 48 KiB static limit: use fewer "
                        "elements per block");
    }
  }
};

}  // namespace

std::shared_ptr<const FusedStrategy> units::staged_gather(FusedSpec spec) {
  return std::make_shared<const StagedGather>(std::move(spec));
}

}  // namespace dualjit::assembly
